import { randomBytes } from 'node:crypto';
import { alertEvents, apps, projectUsers, users } from '../db/schema';
import type { DemoContext } from './context';
import { DEMO_DEVICES } from './devices';

/** Demo staff: sign-in is impossible (the stored hash is random bytes, which no password derives to). */
export const DEMO_USERS = [
    { username: 'zhangwei', displayName: '张伟', userCode: 'U100001', mobile: '13912345678' },
    { username: 'liqiang', displayName: '李强', userCode: 'U100002', mobile: '13812340001' },
    { username: 'wangfang', displayName: '王芳', userCode: 'U100003', mobile: '15900001234' },
    { username: 'liuyang', displayName: '刘洋', userCode: 'U100004', mobile: '18612345670' },
    { username: 'chenjing', displayName: '陈静', userCode: 'U100005', mobile: '17700005678' },
    { username: 'zhaolei', displayName: '赵磊', userCode: 'U100006', mobile: '13698765432' },
];

/** Which demo users staff which demo project. */
const DEMO_STAFF: Array<[projectCode: string, username: string]> = [
    ['P2024001', 'zhangwei'],
    ['P2024001', 'wangfang'],
    ['P2024002', 'liqiang'],
    ['P2024002', 'zhangwei'],
    ['P2024004', 'liuyang'],
];

export const DEMO_APPS = [
    {
        name: '智慧园区运营平台',
        company: '示例科技有限公司',
        activeStatus: 1,
        useStatus: 1,
        domain: '智慧办公',
        description: '园区设备、能耗与告警的统一运营',
    },
    {
        name: '路灯远程管控',
        company: '城市照明管理处',
        activeStatus: 1,
        useStatus: 1,
        domain: '智慧城市',
        description: '单灯开关、调光与故障处置',
    },
    {
        name: '能耗分析看板',
        company: '示例科技有限公司',
        activeStatus: 1,
        useStatus: 0,
        domain: '工业互联网',
        description: '电表数据的日、月能耗分析',
    },
    {
        name: '车队调度助手',
        company: '物流服务有限公司',
        activeStatus: 1,
        useStatus: 0,
        domain: '智慧车辆',
        description: '车辆位置与调度',
    },
    {
        name: '环境监测大屏',
        company: '示例科技有限公司',
        activeStatus: 0,
        useStatus: 0,
        domain: '智慧城市',
        description: '空气质量与温湿度大屏',
    },
];

/** What an alert of a product says, per level (1 urgent, 2 severe, 3 general). */
const ALERT_TEXT: Record<string, string[]> = {
    智能路灯_L1: ['灯具故障：电源异常', '灯具故障：通信中断', '灯具故障：灯珠损坏'],
    智能井盖_M2: ['井盖打开告警', '井盖倾斜角度超过15°', '井盖电池电量低于20%'],
    空气质量监测站: ['PM2.5 浓度超过 250μg/m³', 'PM2.5 浓度超过 150μg/m³', '传感器需要校准'],
    边缘网关_G1: ['网关离线超过10分钟', '网关 CPU 使用率超过90%', '网关存储空间不足'],
    三相电表_E1: ['电压越限：超过 260V', '电流不平衡度超过30%', '电量数据补传'],
    温湿度传感器_T1: ['温度超过 60°C', '湿度超过 90%RH', '电池电量低于20%'],
    家庭网关_H1: ['网关离线', '子设备掉线', '固件有新版本'],
    烟雾报警器_S1: ['检测到烟雾', '传感器故障', '电池电量低'],
};

export const DEMO_ALERT_COUNT = 60;
const DAY = 24 * 60 * 60 * 1000;

/** A fixed pseudo-random sequence, so every demo database has the same alerts relative to its start. */
function sequence(seed: number) {
    let x = seed;
    return () => {
        x = (x * 1103515245 + 12345) % 2147483648;
        return x / 2147483648;
    };
}

/** Demo users, project staff, alert events over the last 30 days and apps, for the dashboard and project overview. */
export async function insertDemoDashboard(ctx: DemoContext): Promise<void> {
    const { tx, now } = ctx;
    const userRows = await tx
        .insert(users)
        .values(
            DEMO_USERS.map((u) => ({
                ...u,
                passwordHash: randomBytes(64).toString('hex'),
                passwordSalt: randomBytes(16).toString('hex'),
            })),
        )
        .onConflictDoNothing()
        .returning({ id: users.id, username: users.username });
    const userIds = new Map(userRows.map((u) => [u.username, u.id]));
    const staff = DEMO_STAFF.filter(([code, name]) => ctx.projectIds.has(code) && userIds.has(name)).map(
        ([code, name]) => ({ projectId: ctx.projectIds.get(code)!, userId: userIds.get(name)! }),
    );
    if (staff.length) await tx.insert(projectUsers).values(staff);

    const random = sequence(20241);
    const seeded = DEMO_DEVICES.filter((d) => ctx.deviceIds.has(d.deviceName));
    const alerts = Array.from({ length: DEMO_ALERT_COUNT }, (_, i) => {
        // Bound devices raise most alerts, so the project overviews have some; a few come from unbound ones.
        const pool = i % 5 === 4 ? seeded : seeded.filter((d) => d.projectCode);
        const device = pool[Math.floor(random() * pool.length)];
        // General alerts are the most common, urgent ones the rarest.
        const type = 3 - Math.floor(random() * random() * 3);
        const ts = new Date(now.getTime() - Math.floor(random() * 30 * DAY));
        // Older alerts are mostly handled; the last few days mostly pending.
        const handled = random() < (now.getTime() - ts.getTime()) / (30 * DAY) + 0.1;
        return {
            type,
            status: handled ? 1 : 0,
            projectId: device.projectCode ? (ctx.projectIds.get(device.projectCode) ?? null) : null,
            deviceId: ctx.deviceIds.get(device.deviceName)!,
            deviceName: device.deviceName,
            productKey: ctx.productIds.get(device.productName)?.productKey ?? null,
            params: ALERT_TEXT[device.productName]?.[type - 1] ?? '设备告警',
            ts,
        };
    }).sort((a, b) => a.ts.getTime() - b.ts.getTime());
    await tx.insert(alertEvents).values(alerts);

    await tx.insert(apps).values(DEMO_APPS.map((a, i) => ({ ...a, recentTime: new Date(now.getTime() - i * DAY) })));
}
