import type { Context } from 'hono';
import type { Db } from '../db/client';
import type { Services } from '../deps';
import { streamSource, VIDEO_NOT_FOUND, type SipInfo } from '../domain/videoDevices';
import { notFound } from '../http/errors';

/** What the /api/video-device handlers share (videoDevice.ts, videoDeviceWrite.ts, videoStream.ts). */

export const NO_STREAM = '视频流不存在或未在推流';

/** The SIP address cameras register to: the endpoint's, or the request's host. */
export const sipOf = (s: Services, c: Context): SipInfo => ({
    sipIp: s.sip?.address() ?? new URL(c.req.url).hostname,
    sipPort: s.sip?.port() ?? null,
});

/** A camera with its relay's status. */
export const withStream = <T extends { deviceId: number }>(s: Services, v: T) => ({
    ...v,
    stream: s.video?.status(v.deviceId) ?? null,
});

/** What an rtsp camera is pulled from: its URL, or the demo's test pattern (server/video/testPattern.ts). */
export const toolsOf = (s: Services) => ({ ffmpegPath: s.config.ffmpegPath, videoDir: s.config.videoDir });

export async function requireVideo(db: Db, deviceId: number) {
    const source = await streamSource(db, deviceId);
    if (!source) throw notFound(VIDEO_NOT_FOUND);
    return source;
}
