import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createVideoRelay } from '../../server/video/relay';
import { startRtspSource } from '../server/rtspSource';
import { checkFfmpeg } from '../../server/video/testPattern';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- video`: the relay of server/video/relay.ts against the local RTSP test camera (320×240 H.264,
 * 15 fps, keyframe each second): time from push to the first playlist for 1 and 10 streams at once, time from push
 * to the first decoded frame in Chromium (hls.js over the relay's HLS), and the CPU ffmpeg spends per relayed
 * stream (H.264 copied), from /proc over 5 s.
 */

const CLK_TCK = 100;

function cpuSeconds(pids: number[]): number {
    let ticks = 0;
    for (const pid of pids) {
        try {
            const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
            ticks += Number(fields[11]) + Number(fields[12]);
        } catch {
            // gone
        }
    }
    return ticks / CLK_TCK;
}

/** The relay's ffmpeg processes (children of this process pulling rtsp, not the test camera's encoder). */
function relayPids(): number[] {
    const out = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,args='], { encoding: 'utf8' });
    return out
        .split('\n')
        .filter((l) => l.includes('ffmpeg') && l.includes('-rtsp_transport') && !l.includes('testsrc'))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function untilPlaying(relay: ReturnType<typeof createVideoRelay>, id: number) {
    for (let i = 0; i < 600 && relay.status(id).state !== 'playing'; i++) await sleep(25);
}

const FFMPEG = process.env.FFMPEG_PATH || 'ffmpeg';

const group: BenchGroup = {
    name: 'video',
    missing() {
        const ffmpeg = checkFfmpeg(FFMPEG);
        if (!ffmpeg.ok) return ffmpeg.why;
        if (FFMPEG !== 'ffmpeg' && !checkFfmpeg('ffmpeg').ok) return checkFfmpeg('ffmpeg').why;
        if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'))
            return '未找到 Chromium（首帧时间需要它）。请安装：apt-get install -y chromium fonts-noto-cjk，或用 CHROMIUM_PATH 指向它。';
        return undefined;
    },
    async run(): Promise<Figure[]> {
        const figures: Figure[] = [];
        const source = await startRtspSource();
        const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-video-'));
        const relay = createVideoRelay({ dir, ffmpegPath: FFMPEG });
        try {
            for (const n of [1, 10]) {
                const ids = Array.from({ length: n }, (_, i) => n * 100 + i);
                const started = performance.now();
                const times = await Promise.all(
                    ids.map(async (id) => {
                        relay.start(id, source.url);
                        await untilPlaying(relay, id);
                        return performance.now() - started;
                    }),
                );
                figures.push({
                    name: `push_to_playlist_${n}_mean`,
                    value: Math.round(times.reduce((a, b) => a + b) / n),
                    unit: 'ms',
                });
                figures.push({ name: `push_to_playlist_${n}_max`, value: Math.round(Math.max(...times)), unit: 'ms' });
                const pids = relayPids();
                const before = cpuSeconds(pids);
                await sleep(5000);
                const used = cpuSeconds(pids) - before;
                figures.push({
                    name: `ffmpeg_cpu_per_stream_${n}`,
                    value: Math.round((used / 5 / n) * 1000) / 10,
                    unit: '% of one core',
                });
                for (const id of ids) relay.stop(id);
            }

            // Push to the first decoded frame in Chromium: the relay's HLS served as the platform serves it.
            const hls = readFileSync(path.resolve('node_modules/hls.js/dist/hls.min.js'));
            const page = `<video id=v muted autoplay playsinline></video><script src="/hls.js"></script><script>
                const h = new Hls({ liveSyncDurationCount: 2, manifestLoadingMaxRetry: 30, manifestLoadingRetryDelay: 100 });
                h.loadSource('/s/1/index.m3u8'); h.attachMedia(document.getElementById('v'));</script>`;
            const http = createServer((req, res) => {
                if (req.url === '/') {
                    res.setHeader('content-type', 'text/html');
                    return res.end(page);
                }
                if (req.url === '/hls.js') {
                    res.setHeader('content-type', 'text/javascript');
                    return res.end(hls);
                }
                const file = path.join(dir, (req.url ?? '').replace(/^\/s\//, ''));
                if (!req.url?.startsWith('/s/') || !existsSync(file)) {
                    res.statusCode = 404;
                    return res.end();
                }
                res.end(readFileSync(file));
            }).listen(0, '127.0.0.1');
            await new Promise((r) => http.once('listening', r));
            const browser = await chromium.launch({
                executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
                args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
            });
            try {
                const tab = await browser.newPage();
                const started = performance.now();
                relay.start(1, source.url);
                await untilPlaying(relay, 1);
                await tab.goto(`http://127.0.0.1:${(http.address() as { port: number }).port}/`);
                await tab.waitForFunction(
                    () => (document.getElementById('v') as HTMLVideoElement).currentTime > 0,
                    undefined,
                    {
                        timeout: 30_000,
                        polling: 20,
                    },
                );
                figures.push({
                    name: 'push_to_first_frame_chromium',
                    value: Math.round(performance.now() - started),
                    unit: 'ms',
                });
                relay.stop(1);
            } finally {
                await browser.close();
                http.close();
            }
        } finally {
            await relay.close();
            await source.close();
            rmSync(dir, { recursive: true, force: true });
        }
        return figures;
    },
};

export default group;
