import { readFile } from 'node:fs/promises';
import { eq, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import {
    DEFAULT_RTSP_URI,
    gbDeviceAddSchema,
    gbDeviceEditSchema,
    rtspDeviceEditSchema,
    rtspDeviceSchema,
    videoPlaceSchema,
} from '../../schemas/videoDevice';
import { DEVICE_NAME_TAKEN } from '../../schemas/device';
import type { Db } from '../db/client';
import { devices, projects, videoDevices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { productById } from '../domain/devices';
import { insertDevices } from '../domain/deviceWrite';
import {
    codeNames,
    dictionary,
    gbCode,
    getVideo,
    listVideos,
    streamSource,
    VIDEO_NOT_FOUND,
    type SipInfo,
} from '../domain/videoDevices';
import { fail, ok } from '../http/envelope';
import { FOREIGN_ORIGIN, isForeignRead } from '../http/guard';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import type { PipeSource } from '../video/relay';
import { checkFfmpeg, rtspSource } from '../video/testPattern';
import { NO_CHANNEL, NOT_REGISTERED } from '../video/sip';

const NO_SIP = 'GB28181 SIP 服务未启动，无法点播';
const NO_STREAM = '视频流不存在或未在推流';

/**
 * /api/video-device (SPEC.md "Video devices"; general family, code 200): rtsp and gb28181 cameras stored as devices
 * of a product, push / stop push (the relay in server/video/relay.ts), the live stream's files for signed-in
 * browsers, and the region dictionaries.
 */
export function videoDeviceRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();
    // What an rtsp camera is pulled from: its URL, or the demo's test pattern (server/video/testPattern.ts).
    const tools = { ffmpegPath: config.ffmpegPath, videoDir: config.videoDir };

    const sipOf = (c: Context): SipInfo => ({
        sipIp: services.sip?.address() ?? new URL(c.req.url).hostname,
        sipPort: services.sip?.port() ?? null,
    });
    const withStream = <T extends { deviceId: number }>(v: T) => ({
        ...v,
        stream: services.video?.status(v.deviceId) ?? null,
    });

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const pushingRaw = c.req.query('pushing') ?? c.req.query('status');
        let pushing: 0 | 1 | undefined;
        if (pushingRaw !== undefined && pushingRaw !== '') {
            if (pushingRaw !== '0' && pushingRaw !== '1') throw badRequest('推流状态只能是0（已停止）或1（已激活）');
            pushing = Number(pushingRaw) as 0 | 1;
        }
        const protocolRaw = c.req.query('protocol');
        if (protocolRaw && protocolRaw !== 'rtsp' && protocolRaw !== 'gb28181')
            throw badRequest('接入协议只能是rtsp或gb28181');
        const protocol = (protocolRaw || undefined) as 'rtsp' | 'gb28181' | undefined;
        const page = await listVideos(
            db,
            { pushing, protocol, deviceName: c.req.query('deviceName')?.trim() || undefined },
            size,
            offset,
            tz,
            sipOf(c),
        );
        return ok(c, { records: page.records.map(withStream), total: page.total });
    });

    app.get('/get', async (c) => {
        const id = positiveInt(c.req.query('id') ?? c.req.query('deviceId'), '缺少设备ID');
        return ok(c, withStream(await getVideo(db, id, tz, sipOf(c))));
    });

    app.get('/dict', async (c) => {
        const kind = c.req.query('kind');
        if (kind !== '1' && kind !== '2' && kind !== '3') throw badRequest('字典类型kind只能是1、2或3');
        return ok(c, await dictionary(db, Number(kind)));
    });

    /** Adds the device row and its camera row in one transaction. */
    async function add(
        c: Context,
        body: Record<string, unknown>,
        base: { productId: number; deviceName: string; remark?: string },
        camera: Omit<typeof videoDevices.$inferInsert, 'deviceId'>,
    ) {
        const place = await validate(videoPlaceSchema, body);
        const projectId =
            body.projectId === undefined || body.projectId === ''
                ? undefined
                : positiveInt(body.projectId, '项目ID必须是正整数');
        const product = await productById(db, base.productId);
        if (!product) throw notFound('产品不存在');
        const names = await codeNames(db, place);
        const id = await db.transaction(async (tx) => {
            if (projectId !== undefined) {
                const [p] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId));
                if (!p) throw notFound('项目不存在');
            }
            const [row] = await insertDevices(tx, product, [
                {
                    deviceName: base.deviceName,
                    remark: base.remark || null,
                    longitude: place.longitude ?? null,
                    latitude: place.latitude ?? null,
                    addr: place.address || null,
                },
            ]);
            if (!row) throw conflict(DEVICE_NAME_TAKEN);
            if (projectId !== undefined) await tx.update(devices).set({ projectId }).where(eq(devices.id, row.id));
            const codes = {
                tcode: place.tcode || null,
                icode: place.icode || null,
                ncode: place.ncode || null,
                pcode: place.pcode || null,
                ccode: place.ccode || null,
                acode: place.acode || null,
            };
            await tx.insert(videoDevices).values({
                ...camera,
                ...codes,
                ...names,
                deviceId: row.id,
                gbId: camera.protocol === 'gb28181' ? gbCode({ ...place }, row.id) : null,
            });
            return row.id;
        });
        return ok(c, await getVideo(db, id, tz, sipOf(c)));
    }

    app.post('/add-rtsp', async (c) => {
        const body = await readBody(c);
        const input = await validate(rtspDeviceSchema, { ...body, protocol: body.protocol ?? 'rtsp' });
        return add(c, body, input, {
            protocol: 'rtsp',
            host: input.host,
            port: input.port,
            username: input.username || null,
            password: input.password || null,
            uri: input.uri || DEFAULT_RTSP_URI,
        });
    });

    app.post('/add-gb28181', async (c) => {
        const body = await readBody(c);
        const input = await validate(gbDeviceAddSchema, { ...body, protocol: body.protocol ?? 'gb28181' });
        return add(c, body, input, {
            protocol: 'gb28181',
            manufacturer: input.manufacturer || null,
            password: input.password,
            uri: '',
        });
    });

    async function rename(deviceId: number, deviceName: string, remark: string | undefined) {
        const [current] = await db
            .select({ productId: devices.productId, deviceName: devices.deviceName })
            .from(devices)
            .where(eq(devices.id, deviceId));
        const changes: Partial<typeof devices.$inferInsert> = { remark: remark || null };
        if (deviceName !== current.deviceName) {
            const product = await productById(db, current.productId);
            Object.assign(changes, {
                deviceName,
                username: `${deviceName}&${product!.productKey}`,
                clientId: `${product!.productKey}.${deviceName}`,
            });
        }
        return changes;
    }

    async function requireVideo(deviceId: number) {
        const source = await streamSource(db, deviceId);
        if (!source) throw notFound(VIDEO_NOT_FOUND);
        return source;
    }

    app.post('/edit-rtsp', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId ?? body.id, '缺少设备ID');
        const source = await requireVideo(deviceId);
        if (source.protocol !== 'rtsp') throw badRequest('该设备不是RTSP设备，不能按RTSP编辑');
        // Product and protocol are locked in edit mode: whatever the call sends, they stay.
        const [device] = await db
            .select({ productId: devices.productId })
            .from(devices)
            .where(eq(devices.id, deviceId));
        const input = await validate(rtspDeviceEditSchema, { ...body, productId: device.productId, protocol: 'rtsp' });
        const changes = await rename(deviceId, input.deviceName, input.remark);
        const camera = {
            host: input.host,
            port: input.port,
            username: input.username || null,
            uri: input.uri || DEFAULT_RTSP_URI,
            // An empty password keeps the stored one (it is never answered back, so the form cannot show it).
            ...(input.password ? { password: input.password } : {}),
        };
        try {
            await db.transaction(async (tx) => {
                await tx.update(devices).set(changes).where(eq(devices.id, deviceId));
                await tx.update(videoDevices).set(camera).where(eq(videoDevices.deviceId, deviceId));
            });
        } catch (err) {
            if (isUniqueViolation(err, 'devices_product_name_uq')) throw conflict(DEVICE_NAME_TAKEN);
            throw err;
        }
        // A pushing camera with a new address is pulled from there at once.
        const after = await streamSource(db, deviceId);
        if (after.pushing === 1)
            services.video?.start(deviceId, rtspSource({ ...after, host: after.host ?? '' }, tools));
        return ok(c, await getVideo(db, deviceId, tz, sipOf(c)));
    });

    app.post('/edit-gb28181', async (c) => {
        const body = await readBody(c);
        const deviceId = positiveInt(body.id ?? body.deviceId, '缺少设备ID');
        const input = await validate(gbDeviceEditSchema, body);
        const source = await requireVideo(deviceId);
        if (source.protocol !== 'gb28181') throw badRequest('该设备不是GB28181设备，不能按GB28181编辑');
        const changes = await rename(deviceId, input.deviceName, input.remark);
        try {
            await db.transaction(async (tx) => {
                await tx.update(devices).set(changes).where(eq(devices.id, deviceId));
                await tx
                    .update(videoDevices)
                    .set({ manufacturer: input.manufacturer || null })
                    .where(eq(videoDevices.deviceId, deviceId));
            });
        } catch (err) {
            if (isUniqueViolation(err, 'devices_product_name_uq')) throw conflict(DEVICE_NAME_TAKEN);
            throw err;
        }
        return ok(c, await getVideo(db, deviceId, tz, sipOf(c)));
    });

    async function pushTarget(c: Context) {
        const body = await readBody(c);
        const deviceId = positiveInt(body.deviceId, '缺少设备ID');
        if (body.projectId !== undefined && body.projectId !== '' && body.projectId !== null)
            positiveInt(body.projectId, '项目ID必须是正整数');
        const source = await requireVideo(deviceId);
        const channelId = typeof body.channelId === 'string' ? body.channelId.trim() : '';
        return { deviceId, source, channelId: channelId || undefined };
    }

    /**
     * Push: an rtsp camera is pulled by URL; a gb28181 camera (or one of its channels) must be registered, and is
     * asked for its video (INVITE) by the relay, which asks again after a lost call.
     */
    app.post('/push', async (c) => {
        const { deviceId, source, channelId } = await pushTarget(c);
        if (source.pushing === 1) throw badRequest('该设备正在推流');
        // No ffmpeg here: say so and how to install it, rather than retrying a push that cannot start.
        const missing = checkFfmpeg(config.ffmpegPath).why;
        if (missing) throw badRequest(missing);
        let relaySource: string | PipeSource = rtspSource({ ...source, host: source.host ?? '' }, tools);
        if (source.protocol === 'gb28181') {
            const sip = services.sip;
            if (!sip?.play || !sip.playTarget) throw badRequest(NO_SIP);
            await sip.playTarget(deviceId, channelId).catch((err: Error) => {
                throw [NOT_REGISTERED, NO_CHANNEL].includes(err.message) ? badRequest(err.message) : err;
            });
            relaySource = sip.play(deviceId, channelId);
        }
        await db.update(videoDevices).set({ pushing: 1 }).where(eq(videoDevices.deviceId, deviceId));
        services.video?.start(deviceId, relaySource);
        return ok(c, await withStream(await getVideo(db, deviceId, tz, sipOf(c))));
    });

    app.post('/stop-push', async (c) => {
        const { deviceId, source } = await pushTarget(c);
        if (source.pushing !== 1) throw badRequest('该设备未在推流');
        await db.update(videoDevices).set({ pushing: 0 }).where(eq(videoDevices.deviceId, deviceId));
        services.video?.stop(deviceId);
        return ok(c, withStream(await getVideo(db, deviceId, tz, sipOf(c))));
    });

    app.delete('/delete', async (c) => {
        const deviceId = positiveInt(c.req.query('id') ?? c.req.query('deviceId'), '缺少设备ID');
        await requireVideo(deviceId);
        services.video?.stop(deviceId);
        await db.delete(devices).where(eq(devices.id, deviceId));
        return ok(c, null);
    });

    app.get('/stream-status', async (c) => {
        const deviceId = positiveInt(c.req.query('id') ?? c.req.query('deviceId'), '缺少设备ID');
        const source = await requireVideo(deviceId);
        return ok(c, { pushing: source.pushing, ...(services.video?.status(deviceId) ?? {}) });
    });

    /** /videoData: cameras by protocol and status, and the relay's figures. */
    app.get('/statistics', async (c) => {
        const rows = await statistics(db);
        return ok(c, {
            ...rows,
            ...(services.video?.stats() ?? { relays: 0, playing: 0, retrying: 0, viewers: 0, bytesServed: 0 }),
        });
    });

    // The live stream of a pushed camera for signed-in browsers (hls.js): its playlist, whose segment lines point
    // back here, and the segments.
    app.get('/stream', async (c) => {
        const deviceId = positiveInt(c.req.query('id'), '缺少设备ID');
        const name = c.req.query('file') || 'index.m3u8';
        const file = services.video?.file(deviceId, name, c.get('token') ?? '');
        if (!file) throw notFound(NO_STREAM);
        let bytes: Buffer;
        try {
            bytes = await readFile(file.path);
        } catch {
            throw notFound(NO_STREAM);
        }
        if (name.endsWith('.m3u8')) {
            const text = bytes
                .toString('utf8')
                .replace(/^(seg_\d+\.ts)$/gm, (seg) => `stream?id=${deviceId}&file=${seg}`);
            return c.body(text, 200, {
                'Content-Type': 'application/vnd.apple.mpegurl',
                'Cache-Control': 'no-store',
            });
        }
        return c.body(new Uint8Array(bytes), 200, {
            'Content-Type': 'video/mp2t',
            'Cache-Control': 'private, max-age=60',
        });
    });

    /**
     * The low-latency live stream of a pushed camera for the console's own page (Media Source Extensions): one
     * chunked body of fragmented MP4, the init segment and the fragments since the last keyframe first, then each
     * fragment as ffmpeg cuts it (server/video/live.ts). A starting stream is waited for (up to 20 s); the body
     * ends when the push stops or the relay restarts, and a viewer that stops reading is dropped.
     */
    app.get('/live', async (c) => {
        if (isForeignRead(c)) return fail(c, 403, FOREIGN_ORIGIN);
        const deviceId = positiveInt(c.req.query('id'), '缺少设备ID');
        const feed = services.video?.live(deviceId);
        const codec = feed ? await feed.ready() : null;
        const body = codec ? feed!.open() : undefined;
        if (!codec) throw notFound(NO_STREAM);
        if (!body) return fail(c, 503, '该视频低延迟观看人数已满，请稍后再试');
        return c.body(body, 200, {
            'Content-Type': `video/mp4; codecs="${codec}"`,
            'Cache-Control': 'no-store',
        });
    });

    return app;
}

async function statistics(db: Db) {
    const result = await db.execute<{
        total: number;
        rtsp: number;
        gb28181: number;
        online: number;
        pushing: number;
    }>(
        // One pass over the cameras (a small table beside devices).
        sqlStats,
    );
    const row = (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0] ?? {};
    return {
        total: Number(row.total ?? 0),
        rtsp: Number(row.rtsp ?? 0),
        gb28181: Number(row.gb28181 ?? 0),
        online: Number(row.online ?? 0),
        pushing: Number(row.pushing ?? 0),
    };
}

const sqlStats = sql`
    SELECT count(*)::int AS total,
           count(*) FILTER (WHERE v.protocol = 'rtsp')::int AS rtsp,
           count(*) FILTER (WHERE v.protocol = 'gb28181')::int AS gb28181,
           count(*) FILTER (WHERE d.status = 'ONLINE')::int AS online,
           count(*) FILTER (WHERE v.pushing = 1)::int AS pushing
    FROM video_devices v JOIN devices d ON d.id = v.device_id`;
