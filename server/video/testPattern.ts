import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { LOOP_PREFIX, rtspUrl } from './relay';

/**
 * The live demo's camera: a test pattern ffmpeg generates (lavfi testsrc, no network and no camera). Encoding it
 * continuously would cost a good part of a core, so a ten-second clip (320×240 H.264, 15 fps, a keyframe each
 * second, MPEG-PS) is encoded once into VIDEO_DIR; the relay cuts it once more (copied) and then plays it in a loop
 * at its own pace by itself (server/video/clipLoop.ts: no ffmpeg runs while it plays) into the same HLS and
 * low-latency path as for any camera; the camera is ONLINE while it plays. A camera whose host is TEST_PATTERN_HOST is
 * this source (push, stop push, resume after a restart work as for any rtsp camera); no other host is.
 */
export const TEST_PATTERN_HOST = 'testsrc.lavfi';

const CLIP = 'testsrc.mpg';

export interface ToolCheck {
    ok: boolean;
    /** Why not, in Chinese, with how to install it. */
    why?: string;
}

/** Whether `program` runs (`-version`): a missing ffmpeg is said plainly, with how to install it. */
export function checkFfmpeg(program: string): ToolCheck {
    const ran = spawnSync(program, ['-version'], { stdio: 'ignore', timeout: 10_000 });
    if (!ran.error && ran.status === 0) return { ok: true };
    return {
        ok: false,
        why:
            `未找到 ffmpeg（${program}${ran.error ? `：${(ran.error as NodeJS.ErrnoException).code ?? ran.error.message}` : ''}），` +
            '视频推流和演示摄像头不可用。请安装 ffmpeg（Debian/Ubuntu：apt-get install -y ffmpeg），或用 FFMPEG_PATH 指向它，然后重启。',
    };
}

/** The looped clip, encoded once (about a second) the first time it is asked for. */
export function ensureTestClip(ffmpegPath: string, videoDir: string): string {
    const dir = path.join(videoDir, 'test-pattern');
    const clip = path.join(dir, CLIP);
    if (existsSync(clip)) return clip;
    mkdirSync(dir, { recursive: true });
    const partial = `${clip}.part`;
    // Written aside and renamed, so a crash mid-way never leaves a broken clip to loop.
    const ran = spawnSync(
        ffmpegPath,
        [
            '-hide_banner',
            '-nostdin',
            '-loglevel',
            'error',
            '-y',
            '-f',
            'lavfi',
            '-i',
            'testsrc=size=320x240:rate=15',
            '-t',
            '10',
            '-c:v',
            'libx264',
            '-preset',
            'veryfast',
            '-profile:v',
            'baseline',
            '-pix_fmt',
            'yuv420p',
            '-g',
            '15',
            '-f',
            'mpeg',
            partial,
        ],
        { encoding: 'utf8', timeout: 60_000 },
    );
    if (ran.status !== 0) {
        rmSync(partial, { force: true });
        throw new Error(`生成测试画面失败：${(ran.stderr || ran.error?.message || '').trim().slice(-300)}`);
    }
    renameSync(partial, clip);
    return clip;
}

/** The relay source that plays the clip in a loop, in real time (no encoding, no process while it plays). */
export function testPatternSource(ffmpegPath: string, videoDir: string): string {
    return `${LOOP_PREFIX}${ensureTestClip(ffmpegPath, videoDir)}`;
}

/** What the relay pulls for an rtsp camera: its URL, or the test pattern for the demo's camera. */
export function rtspSource(
    camera: Parameters<typeof rtspUrl>[0],
    tools: { ffmpegPath: string; videoDir: string },
): string {
    if (camera.host === TEST_PATTERN_HOST) return testPatternSource(tools.ffmpegPath, tools.videoDir);
    return rtspUrl(camera);
}
