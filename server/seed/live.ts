import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import {
    categories,
    devices,
    edgeInstances,
    notifyChannels,
    products,
    rules,
    simulationDevices,
    simulations,
    videoDevices,
} from '../db/schema';
import { deviceCredentials, newDeviceSecret } from '../domain/devices';
import type { RuleEngine } from '../rules/engine';
import type { Action, Condition, Trigger } from '../rules/types';
import type { Simulator } from '../simulation/simulator';
import type { VideoRelay } from '../video/relay';
import { TEST_PATTERN_HOST, testPatternSource } from '../video/testPattern';
import { DARK_LUX } from '../simulation/curves';
import type { DemoContext } from './context';
import { DEMO_DEVICES } from './devices';
import { demoWebhookUrl } from './webhook';

/**
 * The live demo (DEMO_LIVE, on by default with SEED_DEMO): the first start shows the platform at work. The demo's
 * `live` devices are run by ordinary simulations (/monitor/imitate lists them; stop, start and delete them like any
 * other; they resume after a restart like any other), which sign in through the platform's own broker and report
 * on the curves of server/simulation/curves.ts. A scene rule switches a lamp on when the light sensor reads dark
 * and an alert rule raises 严重 when the meeting room overheats: both fire within the first minute (the curves'
 * excursions come at the start of their cycle). The demo edge gateway runs an edge instance whose 监控 tab shows
 * the figures the gateway reports. With ffmpeg on the machine, a camera (CAM-DEMO-01) plays ffmpeg's test pattern
 * (server/video/testPattern.ts); without it the demo has no camera and /vaServices says how to install ffmpeg.
 */

/** Report interval per demo product (seconds): a few messages a minute in all (docs/configuration.md, DEMO_LIVE). */
const INTERVALS: Record<string, { seconds: number; events: boolean }> = {
    智能路灯_L1: { seconds: 30, events: true },
    智能井盖_M2: { seconds: 60, events: true },
    空气质量监测站: { seconds: 15, events: false },
    边缘网关_G1: { seconds: 30, events: false },
    温湿度传感器_T1: { seconds: 15, events: false },
};

export const DEMO_SCENE_RULE = '天暗自动开灯';
export const DEMO_ALERT_RULE = '会议室温度过高';
export const DEMO_EDGE_INSTANCE = '一号车间边缘实例';
export const DEMO_CAMERA = 'CAM-DEMO-01';
export const DEMO_CAMERA_PRODUCT = { productName: '网络摄像机_V1', productKey: 'a1CameraDm1' };
export const DEMO_CHANNEL = '演示 Webhook（本机接收）';
/** The demo's 停用 rules with overlapping 生效时段 (name, start, end): the week grid of /ruleEngine/TimeWindows. */
export const DEMO_WINDOW_RULES: Array<[string, string, string]> = [
    ['夜间路灯巡检', '22:00', '06:00'],
    ['晚高峰照明', '17:30', '23:00'],
    ['白天空气巡检', '08:00', '18:00'],
];

export async function insertLiveDemo(ctx: DemoContext, opts: { camera: boolean; port: number }): Promise<void> {
    const { tx, now, productIds, projectIds, deviceIds } = ctx;
    const byProduct = new Map<string, number[]>();
    for (const d of DEMO_DEVICES.filter((x) => x.live)) {
        byProduct.set(d.productName, [...(byProduct.get(d.productName) ?? []), deviceIds.get(d.deviceName)!]);
    }
    for (const [productName, ids] of byProduct) {
        const every = INTERVALS[productName];
        if (!every) throw new Error(`seed: no live interval for ${productName}`);
        const [sim] = await tx
            .insert(simulations)
            .values({
                productId: productIds.get(productName)!.id,
                intervalSeconds: every.seconds,
                mode: 'random',
                events: every.events,
                running: true,
                startTime: now,
            })
            .returning({ id: simulations.id });
        await tx
            .insert(simulationDevices)
            .values(ids.map((deviceId, position) => ({ simulationId: sim.id, deviceId, position })));
    }

    const lamp = productIds.get('智能路灯_L1')!;
    const scene: { triggers: Trigger[]; conditions: Condition[]; actions: Action[] } = {
        triggers: [{ id: 't1', type: 'property', identifier: 'Illuminance' }],
        conditions: [{ id: 'c1', source: 'property', identifier: 'Illuminance', operator: '<', value: DARK_LUX }],
        actions: [
            {
                id: 'a1',
                type: 'setProperty',
                productKey: lamp.productKey,
                deviceName: 'SL-BJ-0002',
                identifier: 'LightSwitch',
                value: 1,
            },
        ],
    };
    // The alert rule notifies through an ordinary webhook 通知方式 addressed to this platform itself
    // (server/seed/webhook.ts): sent and answered with no network, so /log's 告警消息 shows each notification and its
    // attempts from the first alert on (告警通知 as it fires, 恢复通知 when the room cools down).
    const [channel] = await tx
        .insert(notifyChannels)
        .values({ name: DEMO_CHANNEL, type: 'webhook', config: { url: demoWebhookUrl(opts.port) }, createTime: now })
        .returning({ id: notifyChannels.id });
    const alert: { triggers: Trigger[]; conditions: Condition[]; actions: Action[] } = {
        triggers: [{ id: 't1', type: 'property', identifier: 'Temperature' }],
        conditions: [{ id: 'c1', source: 'property', identifier: 'Temperature', operator: '>', value: 30 }],
        actions: [
            { id: 'a1', type: 'alert', level: 2, content: '${deviceName} 温度 ${value}°C，超过 30°C' },
            { id: 'a2', type: 'notify', channelId: channel.id, onRecover: true },
        ],
    };
    await tx.insert(rules).values([
        {
            name: DEMO_SCENE_RULE,
            type: 1,
            projectId: projectIds.get('P2024001') ?? null,
            productId: productIds.get('空气质量监测站')!.id,
            deviceId: deviceIds.get('AQ-SH-01')!,
            enabled: true,
            description: `光照度低于 ${DARK_LUX} lux 时打开长安街东段路灯 SL-BJ-0002（演示）`,
            match: 'all',
            ...scene,
            createTime: now,
            updateTime: now,
        },
        {
            name: DEMO_ALERT_RULE,
            type: 2,
            projectId: projectIds.get('P2024001') ?? null,
            productId: productIds.get('温湿度传感器_T1')!.id,
            deviceId: null,
            enabled: true,
            description: '温度高于 30°C 产生严重告警，需人工处理（演示）',
            match: 'all',
            ...alert,
            // Stays 待处理 until someone handles it, so a newcomer sees it on the dashboard and can try 处理.
            autoClear: false,
            createTime: now,
            updateTime: now,
        },
        // Three rules kept 停用 (they never fire) whose 生效时段 overlap, one across midnight: /ruleEngine/TimeWindows
        // draws them on its week grid.
        ...DEMO_WINDOW_RULES.map(([name, start, end]) => ({
            name,
            type: 1,
            projectId: projectIds.get('P2024001') ?? null,
            productId: productIds.get('空气质量监测站')!.id,
            deviceId: deviceIds.get('AQ-SH-01')!,
            enabled: false,
            description: `生效时段 ${start}–${end}（演示，已停用）`,
            match: 'all' as const,
            ...scene,
            timeWindow: { start, end },
            createTime: now,
            updateTime: now,
        })),
    ]);

    await tx.insert(edgeInstances).values({
        name: DEMO_EDGE_INSTANCE,
        spec: '4核8G',
        gatewayId: deviceIds.get('GW-FAC-01')!,
        remark: '一号车间网关上的边缘实例（演示）',
        createTime: now,
    });

    if (opts.camera) await insertCamera(ctx);
}

/** The camera's product (under 家居安防) and the camera, pushing: startLiveDemo starts its test pattern. */
async function insertCamera({ tx, now, projectIds }: DemoContext) {
    const [category] = await tx.select({ id: categories.id }).from(categories).where(eq(categories.name, '家居安防'));
    const [product] = await tx
        .insert(products)
        .values({
            ...DEMO_CAMERA_PRODUCT,
            nodeType: 0,
            gatewayType: 0,
            categoryId: category.id,
            networkType: 5,
            dataType: 0,
            projectCode: 'P2024001',
            remark: '演示摄像头的产品',
            createTime: now,
        })
        .returning({ id: products.id });
    const [camera] = await tx
        .insert(devices)
        .values({
            productId: product.id,
            deviceName: DEMO_CAMERA,
            status: 'OFFLINE',
            remark: '演示摄像头（ffmpeg 生成的测试画面）',
            projectId: projectIds.get('P2024001') ?? null,
            ...deviceCredentials(DEMO_CAMERA_PRODUCT.productKey, DEMO_CAMERA),
            secret: newDeviceSecret(),
            longitude: 121.6005,
            latitude: 31.2005,
            addr: '上海市浦东新区张江高科技园区',
            createTime: now,
        })
        .returning({ id: devices.id });
    await tx.insert(videoDevices).values({
        deviceId: Number(camera.id),
        protocol: 'rtsp',
        host: TEST_PATTERN_HOST,
        port: 554,
        uri: '/testsrc',
        pushing: 1,
        manufacturer: 'ffmpeg lavfi',
    });
}

/**
 * After the first start's seed: the engine loads the rules, the simulations connect, the camera plays. (Later starts
 * resume them as any running simulation and pushing camera.)
 */
export async function startLiveDemo(services: {
    db?: Db;
    simulator: Simulator;
    rules: RuleEngine;
    video?: VideoRelay;
    config?: { ffmpegPath: string; videoDir: string };
}): Promise<void> {
    await services.rules.refresh();
    await services.simulator.resume();
    const { db, video, config } = services;
    if (!db || !video || !config) return;
    const cameras = await db
        .select({ id: videoDevices.deviceId })
        .from(videoDevices)
        .where(and(eq(videoDevices.host, TEST_PATTERN_HOST), eq(videoDevices.pushing, 1)));
    for (const c of cameras) video.start(Number(c.id), testPatternSource(config.ffmpegPath, config.videoDir));
}
