import { eq, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import type { Db } from '../db/client';
import { devices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { dictionary, getVideo, listVideos } from '../domain/videoDevices';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { paging, positiveInt } from '../http/input';
import { requireVideo, sipOf, withStream } from './videoCommon';
import { addGb28181, addRtsp, editGb28181, editRtsp } from './videoDeviceWrite';
import { liveStream, push, stopPush, streamFile } from './videoStream';

/**
 * /api/video-device (SPEC.md "Video devices"; general family, code 200): rtsp and gb28181 cameras stored as devices
 * of a product (added and edited in videoDeviceWrite.ts), push / stop push and the live stream's files for signed-in
 * browsers (videoStream.ts), and the region dictionaries.
 */

type C = Context<AppEnv>;

/** The pushing filter of the list: 0, 1 or absent. */
export function pushingFilter(raw: string | undefined): 0 | 1 | undefined {
    if (raw === undefined || raw === '') return undefined;
    if (raw !== '0' && raw !== '1') throw badRequest('推流状态只能是0（已停止）或1（已激活）');
    return Number(raw) as 0 | 1;
}

export async function listCameras(s: Services, c: C) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const pushing = pushingFilter(c.req.query('pushing') ?? c.req.query('status'));
    const protocolRaw = c.req.query('protocol');
    if (protocolRaw && protocolRaw !== 'rtsp' && protocolRaw !== 'gb28181')
        throw badRequest('接入协议只能是rtsp或gb28181');
    const protocol = (protocolRaw || undefined) as 'rtsp' | 'gb28181' | undefined;
    const page = await listVideos(
        s.db,
        { pushing, protocol, deviceName: c.req.query('deviceName')?.trim() || undefined },
        size,
        offset,
        s.config.timeZone,
        sipOf(s, c),
    );
    return ok(c, { records: page.records.map((v) => withStream(s, v)), total: page.total });
}

const cameraId = (c: C) => positiveInt(c.req.query('id') ?? c.req.query('deviceId'), '缺少设备ID');

export async function getCamera(s: Services, c: C) {
    return ok(c, withStream(s, await getVideo(s.db, cameraId(c), s.config.timeZone, sipOf(s, c))));
}

export async function regionDictionary(s: Services, c: C) {
    const kind = c.req.query('kind');
    if (kind !== '1' && kind !== '2' && kind !== '3') throw badRequest('字典类型kind只能是1、2或3');
    return ok(c, await dictionary(s.db, Number(kind)));
}

export async function deleteCamera(s: Services, c: C) {
    const deviceId = cameraId(c);
    await requireVideo(s.db, deviceId);
    s.video?.stop(deviceId);
    await s.db.delete(devices).where(eq(devices.id, deviceId));
    return ok(c, null);
}

export async function streamStatus(s: Services, c: C) {
    const deviceId = cameraId(c);
    const source = await requireVideo(s.db, deviceId);
    return ok(c, { pushing: source.pushing, ...(s.video?.status(deviceId) ?? {}) });
}

/** /videoData: cameras by protocol and status, and the relay's figures. */
export async function cameraStatistics(s: Services, c: C) {
    const rows = await statistics(s.db);
    return ok(c, {
        ...rows,
        ...(s.video?.stats() ?? { relays: 0, playing: 0, retrying: 0, viewers: 0, bytesServed: 0 }),
    });
}

export function videoDeviceRoutes(s: Services) {
    return new Hono<AppEnv>()
        .get('/list', (c) => listCameras(s, c))
        .get('/get', (c) => getCamera(s, c))
        .get('/dict', (c) => regionDictionary(s, c))
        .post('/add-rtsp', (c) => addRtsp(s, c))
        .post('/add-gb28181', (c) => addGb28181(s, c))
        .post('/edit-rtsp', (c) => editRtsp(s, c))
        .post('/edit-gb28181', (c) => editGb28181(s, c))
        .post('/push', (c) => push(s, c))
        .post('/stop-push', (c) => stopPush(s, c))
        .delete('/delete', (c) => deleteCamera(s, c))
        .get('/stream-status', (c) => streamStatus(s, c))
        .get('/statistics', (c) => cameraStatistics(s, c))
        .get('/stream', (c) => streamFile(s, c))
        .get('/live', (c) => liveStream(s, c));
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
