import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { and, eq, inArray } from 'drizzle-orm';
import type { ServerConfig } from '../config';
import type { Db } from '../db/client';
import { devices, otaBatches, otaPackages, products } from '../db/schema';
import { createAccessHub, type DeviceAccessBackend } from '../mqtt/access';
import type { DeviceEntry } from '../mqtt/directory';
import type { TopicHandler } from '../mqtt/uplink';
import { createBatch } from '../ota/batches';
import { storePackage } from '../ota/packages';
import { otaTopics } from '../ota/protocol';
import { createOtaService } from '../ota/service';

/**
 * The live demo's firmware (DEMO_LIVE, after the first start's seed): a small real .bin for the lamps' product,
 * stored as 上传固件 stores one (FILES_DIR/ota, its MD5 and SHA-256 computed as it streams in, signed SHA256), and one
 * finished 批量升级 over two lamps, three days ago, played through OTA's own service as the devices would: each lamp
 * informs V2.1.0, the batch is made, the scheduler pushes the upgrade, the lamps report progress and inform V2.3.1, and
 * the scheduler closes the batch 已完成 with both 成功. The service runs on a transport of its own that reaches no
 * device (no broker is involved, nothing connects): every push, progress report, inform and result is written to the
 * lamps' message log at its time, as a real upgrade's would be, and their versions are stored (设备详情 → 固件升级).
 */

export const DEMO_FIRMWARE = {
    name: '路灯控制器固件',
    productName: '智能路灯_L1',
    version: 'V2.3.1',
    from: 'V2.1.0',
    fileName: 'sl-l1-fw-V2.3.1.bin',
    description: '修复调光闪烁，优化光控阈值（演示）',
    /** The lamps the finished batch upgraded (not the live SL-BJ-0002: its simulation reports V2.1.0 still). */
    devices: ['SL-BJ-0001', 'SL-BJ-0003'],
};

const DAY = 24 * 60 * 60 * 1000;

/** A small firmware image: a header naming it, then 64 KiB of deterministic bytes (the same file every start). */
export function demoFirmwareBytes(): Buffer {
    const header = Buffer.from(`SL-L1 FIRMWARE ${DEMO_FIRMWARE.version}\0`, 'latin1');
    const body = Buffer.alloc(64 * 1024);
    let block = createHash('sha256').update(header).digest();
    for (let i = 0; i < body.length; i += block.length) {
        block.copy(body, i);
        block = createHash('sha256').update(block).digest();
    }
    return Buffer.concat([header, body]);
}

/** A transport for the OTA service that reaches no device: pushes are taken as sent, device topics come from here. */
function localTransport() {
    let handler: TopicHandler | undefined;
    const backend = {
        disconnect: () => undefined,
        isOnline: () => true,
        connected: 0,
        traffic: { subscribe: () => () => undefined, rates: () => ({}) },
        publishTo: async () => true,
        downlink: {
            setProperties: () => Promise.reject(new Error('no device')),
            invokeService: () => Promise.reject(new Error('no device')),
        },
        uplink: {
            onAccepted: () => () => undefined,
            addTopicHandler(fn: TopicHandler) {
                handler = fn;
                return () => (handler = undefined);
            },
        },
    } as unknown as DeviceAccessBackend;
    const hub = createAccessHub();
    return {
        hub,
        attach: () => hub.attach(backend),
        /** A device's publish on one of the OTA topics, as the broker would hand it over. */
        async publish(device: DeviceEntry, topic: string, params: Record<string, unknown>) {
            await handler?.(device, topic, Buffer.from(JSON.stringify({ id: String(Date.now()), params })));
        },
    };
}

export async function seedDemoOta(
    db: Db,
    config: Pick<ServerConfig, 'port' | 'ota' | 'filesDir' | 'timeZone'>,
    opts: { now?: Date; logError?: (message: string, err: unknown) => void } = {},
): Promise<void> {
    const logError = opts.logError ?? ((m, e) => console.error(m, e));
    const [product] = await db.select().from(products).where(eq(products.productName, DEMO_FIRMWARE.productName));
    if (!product) return;
    const lamps = await db
        .select({ id: devices.id, deviceName: devices.deviceName, secret: devices.secret })
        .from(devices)
        .where(and(eq(devices.productId, product.id), inArray(devices.deviceName, DEMO_FIRMWARE.devices)));
    const entries: DeviceEntry[] = lamps.map((d) => ({
        deviceId: Number(d.id),
        productId: product.id,
        productKey: product.productKey,
        deviceName: d.deviceName,
        secret: d.secret,
        enabled: true,
        nodeType: product.nodeType,
        passthrough: false,
        gwId: null,
        status: 'OFFLINE',
    }));

    // Half an hour before the first start: the platform's own scheduler runs meanwhile (a broker is attached) and
    // would fail a task pushed longer ago than the batch's timeout (60 min) as 升级超时 before the lamps' informs.
    let clock = (opts.now ?? new Date()).getTime() - 30 * 60_000;
    const advance = (seconds: number) => (clock += seconds * 1000);
    const transport = localTransport();
    const ota = createOtaService({
        db,
        access: transport.hub,
        config,
        now: () => new Date(clock),
        tickMs: DAY,
        logError,
    });
    transport.attach();
    try {
        const pkg = await storePackage(
            db,
            config.filesDir,
            config.ota.maxBytes,
            {
                fields: {
                    name: DEMO_FIRMWARE.name,
                    productId: String(product.id),
                    module: 'default',
                    version: DEMO_FIRMWARE.version,
                    sourceVersions: DEMO_FIRMWARE.from,
                    signMethod: 'SHA256',
                    description: DEMO_FIRMWARE.description,
                },
                fileName: DEMO_FIRMWARE.fileName,
                body: Readable.toWeb(Readable.from([demoFirmwareBytes()])) as ReadableStream<Uint8Array>,
            },
            config.timeZone,
        );
        await db
            .update(otaPackages)
            .set({ createTime: new Date(clock) })
            .where(eq(otaPackages.id, pkg.id));
        for (const d of entries) {
            await transport.publish(d, otaTopics(d).inform, { version: DEMO_FIRMWARE.from, module: 'default' });
        }
        advance(600);
        const batch = await createBatch(db, {
            packageId: pkg.id,
            kind: 'batch',
            scope: 'devices',
            deviceIds: entries.map((d) => d.deviceId).join(','),
            timeoutMinutes: 60,
            retries: 1,
        });
        await db
            .update(otaBatches)
            .set({ createTime: new Date(clock) })
            .where(eq(otaBatches.id, batch.id));
        advance(2);
        await ota.tick();
        for (const [i, d] of entries.entries()) {
            const topic = otaTopics(d).progress;
            advance(8 + i);
            await transport.publish(d, topic, { step: '30', desc: '下载中', module: 'default' });
            advance(12);
            await transport.publish(d, topic, { step: '80', desc: '下载完成，校验通过', module: 'default' });
            advance(20);
            await transport.publish(d, topic, { step: '100', desc: '升级完成，重启中', module: 'default' });
            advance(35);
            await transport.publish(d, otaTopics(d).inform, { version: DEMO_FIRMWARE.version, module: 'default' });
        }
        advance(1);
        await ota.tick();
    } finally {
        await ota.close();
    }
}
