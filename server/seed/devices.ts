import type { DeviceStatus } from '../../schemas/device';
import type { Tx } from '../db/client';
import { devices } from '../db/schema';
import { deviceCredentials, newDeviceSecret } from '../domain/devices';

/** Demo devices for the demo products: every status, some bound to projects, some placed on the map, a gateway. */
export interface DemoDevice {
    deviceName: string;
    productName: string;
    /**
     * As seeded. No device is seeded ONLINE: 在线 means connected, and the live demo's devices (`live`) connect
     * through the platform's own simulation once the seed is in (server/seed/live.ts); nothing connects the others.
     */
    status: Exclude<DeviceStatus, 'ONLINE'>;
    /** Run by the live demo's simulation (DEMO_LIVE, on by default): reports on curves, 在线 from the first second. */
    live?: true;
    /** Fixed DeviceSecret: the help pages' samples sign in with it as printed (demo data only). */
    secret?: string;
    /** Last reported minutes before the seed, though not connected now (its pages show today's data). */
    recent?: true;
    remark?: string;
    projectCode?: string;
    /** [longitude, latitude] */
    location?: [number, number];
    addr?: string;
    /** deviceName of the gateway (its own product's device) this sub-device reaches the platform through. */
    gateway?: string;
}

const LAMP = '智能路灯_L1';
/** SL-BJ-0001's DeviceSecret as docs/help prints it. */
export const HELP_SECRET = '9c1e4b7a2d5f8e3b6a0c9d2e5f8b1a4c';
const COVER = '智能井盖_M2';

export const DEMO_DEVICES: DemoDevice[] = [
    {
        deviceName: 'SL-BJ-0001',
        productName: LAMP,
        // The user manual's device: the reader connects it with the samples (its secret is the one printed there),
        // and then looks at its properties and events: its history runs up to a few minutes ago.
        status: 'OFFLINE',
        secret: HELP_SECRET,
        recent: true,
        projectCode: 'P2024002',
        location: [116.397128, 39.916527],
        addr: '北京市东城区景山前街4号',
        remark: '故宫北门路灯',
    },
    {
        deviceName: 'SL-BJ-0002',
        productName: LAMP,
        status: 'OFFLINE',
        live: true,
        projectCode: 'P2024002',
        location: [116.404269, 39.909187],
        addr: '北京市东城区东长安街',
        remark: '长安街东段',
    },
    {
        deviceName: 'SL-BJ-0003',
        productName: LAMP,
        status: 'OFFLINE',
        projectCode: 'P2024002',
        location: [116.410886, 39.881998],
        addr: '北京市东城区天坛路',
        remark: '天坛北门',
    },
    {
        deviceName: 'SL-BJ-0004',
        productName: LAMP,
        status: 'DISABLE',
        location: [116.326836, 39.992807],
        addr: '北京市海淀区颐和园路',
        remark: '待检修',
    },
    { deviceName: 'SL-BJ-0005', productName: LAMP, status: 'INACTIVE', remark: '库存备件' },
    {
        deviceName: 'MC-SH-0001',
        productName: COVER,
        status: 'OFFLINE',
        live: true,
        projectCode: 'P2024002',
        location: [121.473701, 31.230416],
        addr: '上海市黄浦区人民大道200号',
        remark: '人民广场',
    },
    {
        deviceName: 'MC-SH-0002',
        productName: COVER,
        status: 'OFFLINE',
        location: [121.499718, 31.239703],
        addr: '上海市浦东新区世纪大道1号',
        remark: '陆家嘴',
    },
    {
        deviceName: 'MC-SH-0003',
        productName: COVER,
        status: 'OFFLINE',
        live: true,
        location: [121.445438, 31.221516],
        addr: '上海市静安区南京西路1376号',
    },
    { deviceName: 'MC-SH-0004', productName: COVER, status: 'INACTIVE' },
    {
        deviceName: 'AQ-SH-01',
        productName: '空气质量监测站',
        status: 'OFFLINE',
        live: true,
        projectCode: 'P2024001',
        location: [121.6, 31.2],
        addr: '上海市浦东新区张江高科技园区',
        remark: '园区东门监测站',
    },
    {
        deviceName: 'AQ-SH-02',
        productName: '空气质量监测站',
        status: 'OFFLINE',
        projectCode: 'P2024001',
        location: [121.59, 31.205],
        addr: '上海市浦东新区张江路',
    },
    {
        deviceName: 'GW-FAC-01',
        productName: '边缘网关_G1',
        status: 'OFFLINE',
        live: true,
        projectCode: 'P2024004',
        location: [121.385, 31.115],
        addr: '上海市闵行区莘庄工业区',
        remark: '一号车间网关',
    },
    {
        deviceName: 'EM-FAC-01-01',
        productName: '三相电表_E1',
        status: 'OFFLINE',
        projectCode: 'P2024004',
        gateway: 'GW-FAC-01',
        remark: '一号车间总表',
    },
    {
        deviceName: 'EM-FAC-01-02',
        productName: '三相电表_E1',
        status: 'OFFLINE',
        projectCode: 'P2024004',
        gateway: 'GW-FAC-01',
        remark: '空压机分表',
    },
    {
        deviceName: 'TH-OFFICE-01',
        productName: '温湿度传感器_T1',
        status: 'OFFLINE',
        live: true,
        gateway: 'HGW-0001',
        remark: '三楼会议室',
    },
    { deviceName: 'TH-OFFICE-02', productName: '温湿度传感器_T1', status: 'INACTIVE' },
    {
        deviceName: 'HGW-0001',
        productName: '家庭网关_H1',
        status: 'OFFLINE',
        location: [116.310003, 39.991957],
        addr: '北京市海淀区中关村大街',
        remark: '展厅网关',
    },
    { deviceName: 'SMK-0001', productName: '烟雾报警器_S1', status: 'DISABLE', remark: '已停用' },
];

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;

/** Inserts the demo devices, oldest first (ids grow with time, so the newest-first list matches createTime). */
export async function insertDemoDevices(
    tx: Tx,
    productIds: Map<string, { id: number; productKey: string }>,
    projectIds: Map<string, number>,
    now: Date,
): Promise<Map<string, number>> {
    // Gateways first, so their sub-devices can point at them.
    const ordered = [...DEMO_DEVICES].sort((a, b) => Number(!!a.gateway) - Number(!!b.gateway));
    const ids = new Map<string, number>();
    for (const [i, d] of ordered.entries()) {
        const product = productIds.get(d.productName);
        if (!product) throw new Error(`seed: unknown product ${d.productName}`);
        const created = new Date(now.getTime() - (30 - i) * DAY);
        // Live devices last reported a few minutes ago (their history runs up to then); the simulation goes on from there.
        const connected =
            d.status === 'INACTIVE' ? null : new Date(now.getTime() - (d.live || d.recent ? 5 : 3 * 24 * 60) * MINUTE);
        const [row] = await tx
            .insert(devices)
            .values({
                productId: product.id,
                deviceName: d.deviceName,
                status: d.status,
                enabled: d.status !== 'DISABLE',
                remark: d.remark ?? null,
                projectId: d.projectCode ? projectIds.get(d.projectCode) : null,
                ...deviceCredentials(product.productKey, d.deviceName),
                secret: d.secret ?? newDeviceSecret(),
                longitude: d.location?.[0] ?? null,
                latitude: d.location?.[1] ?? null,
                addr: d.addr ?? null,
                gwId: d.gateway ? ids.get(d.gateway) : null,
                createTime: created,
                lastTime: connected,
                statusTime: connected ?? null,
            })
            .returning({ id: devices.id });
        ids.set(d.deviceName, Number(row.id));
    }
    return ids;
}
