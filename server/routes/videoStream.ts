import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { videoDevices } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { getVideo } from '../domain/videoDevices';
import { fail, ok } from '../http/envelope';
import { FOREIGN_ORIGIN, isForeignRead } from '../http/guard';
import { badRequest, notFound } from '../http/errors';
import { positiveInt, readBody } from '../http/input';
import type { PipeSource } from '../video/relay';
import { NO_CHANNEL, NOT_REGISTERED } from '../video/sip';
import { checkFfmpeg, rtspSource } from '../video/testPattern';
import { NO_STREAM, requireVideo, sipOf, toolsOf, withStream } from './videoCommon';

/** Push and stop push of a camera (the relay in server/video/relay.ts), and its live stream for signed-in browsers. */

type C = Context<AppEnv>;

const NO_SIP = 'GB28181 SIP 服务未启动，无法点播';

/** The camera (and gb28181 channel) a push or stop push names. */
async function pushTarget(s: Services, c: C) {
    const body = await readBody(c);
    const deviceId = positiveInt(body.deviceId, '缺少设备ID');
    if (body.projectId !== undefined && body.projectId !== '' && body.projectId !== null)
        positiveInt(body.projectId, '项目ID必须是正整数');
    const source = await requireVideo(s.db, deviceId);
    const channelId = typeof body.channelId === 'string' ? body.channelId.trim() : '';
    return { deviceId, source, channelId: channelId || undefined };
}

/**
 * Push: an rtsp camera is pulled by URL; a gb28181 camera (or one of its channels) must be registered, and is asked
 * for its video (INVITE) by the relay, which asks again after a lost call.
 */
export async function push(s: Services, c: C) {
    const { deviceId, source, channelId } = await pushTarget(s, c);
    if (source.pushing === 1) throw badRequest('该设备正在推流');
    // No ffmpeg here: say so and how to install it, rather than retrying a push that cannot start.
    const missing = checkFfmpeg(s.config.ffmpegPath).why;
    if (missing) throw badRequest(missing);
    let relaySource: string | PipeSource = rtspSource({ ...source, host: source.host ?? '' }, toolsOf(s));
    if (source.protocol === 'gb28181') {
        const sip = s.sip;
        if (!sip?.play || !sip.playTarget) throw badRequest(NO_SIP);
        await sip.playTarget(deviceId, channelId).catch((err: Error) => {
            throw [NOT_REGISTERED, NO_CHANNEL].includes(err.message) ? badRequest(err.message) : err;
        });
        relaySource = sip.play(deviceId, channelId);
    }
    await s.db.update(videoDevices).set({ pushing: 1 }).where(eq(videoDevices.deviceId, deviceId));
    s.video?.start(deviceId, relaySource);
    return ok(c, withStream(s, await getVideo(s.db, deviceId, s.config.timeZone, sipOf(s, c))));
}

export async function stopPush(s: Services, c: C) {
    const { deviceId, source } = await pushTarget(s, c);
    if (source.pushing !== 1) throw badRequest('该设备未在推流');
    await s.db.update(videoDevices).set({ pushing: 0 }).where(eq(videoDevices.deviceId, deviceId));
    s.video?.stop(deviceId);
    return ok(c, withStream(s, await getVideo(s.db, deviceId, s.config.timeZone, sipOf(s, c))));
}

/** The playlist's segment lines point back to /stream with the camera's id. */
export const playlistText = (text: string, deviceId: number) =>
    text.replace(/^(seg_\d+\.ts)$/gm, (seg) => `stream?id=${deviceId}&file=${seg}`);

/** The HLS stream of a pushed camera for hls.js: its playlist and its segments. */
export async function streamFile(s: Services, c: C) {
    const deviceId = positiveInt(c.req.query('id'), '缺少设备ID');
    const name = c.req.query('file') || 'index.m3u8';
    const file = s.video?.file(deviceId, name, c.get('token') ?? '');
    if (!file) throw notFound(NO_STREAM);
    let bytes: Buffer;
    try {
        bytes = await readFile(file.path);
    } catch {
        throw notFound(NO_STREAM);
    }
    if (name.endsWith('.m3u8'))
        return c.body(playlistText(bytes.toString('utf8'), deviceId), 200, {
            'Content-Type': 'application/vnd.apple.mpegurl',
            'Cache-Control': 'no-store',
        });
    return c.body(new Uint8Array(bytes), 200, {
        'Content-Type': 'video/mp2t',
        'Cache-Control': 'private, max-age=60',
    });
}

/**
 * The low-latency live stream of a pushed camera for the console's own page (Media Source Extensions): one chunked
 * body of fragmented MP4, the init segment and the fragments since the last keyframe first, then each fragment as
 * ffmpeg cuts it (server/video/live.ts). A starting stream is waited for (up to 20 s); the body ends when the push
 * stops or the relay restarts, and a viewer that stops reading is dropped.
 */
export async function liveStream(s: Services, c: C) {
    if (isForeignRead(c)) return fail(c, 403, FOREIGN_ORIGIN);
    const deviceId = positiveInt(c.req.query('id'), '缺少设备ID');
    const feed = s.video?.live(deviceId);
    const codec = feed ? await feed.ready() : null;
    const body = codec ? feed!.open() : undefined;
    if (!codec) throw notFound(NO_STREAM);
    if (!body) return fail(c, 503, '该视频低延迟观看人数已满，请稍后再试');
    return c.body(body, 200, {
        'Content-Type': `video/mp4; codecs="${codec}"`,
        'Cache-Control': 'no-store',
    });
}
