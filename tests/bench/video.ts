import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { build } from 'esbuild';
import { chromium, type Page } from 'playwright-core';
import { createVideoRelay } from '../../server/video/relay';
import { startRtspSource } from '../server/rtspSource';
import { checkFfmpeg } from '../../server/video/testPattern';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- video`: the relay of server/video/relay.ts against the local RTSP test camera (320×240 H.264,
 * 15 fps, keyframe each second): time from push to the first playlist for 1 and 10 streams at once (the anchor),
 * time from push to the first video frame Chromium presents on the low-latency path (the player's own
 * src/widgets/video/lowLatency.ts: fragmented MP4 into Media Source Extensions) and on the HLS fallbacks (hls.js
 * over the relay's HLS, and Chromium's own HLS as where MSE is missing), the time a second viewer of a playing
 * stream waits for its first frame on each, and the CPU ffmpeg spends per relayed stream (H.264 copied), from /proc over 5 s.
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

/** Until the stream plays: its HLS playlist exists (the anchor: what the HLS path waits for). */
async function untilHls(relay: ReturnType<typeof createVideoRelay>, id: number) {
    for (let i = 0; i < 600 && relay.status(id).state !== 'playing'; i++) await sleep(25);
}

const FFMPEG = process.env.FFMPEG_PATH || 'ffmpeg';
const ROUNDS = 5;

type Relay = ReturnType<typeof createVideoRelay>;

/**
 * Push to the first presented frame (requestVideoFrameCallback), each path ROUNDS times in turn, each round a new
 * camera and a new page: HLS (the page opens once the playlist exists, as the player does) and the low-latency path
 * (the page opens at once: the player asks while the stream starts and the server holds the answer until the first
 * keyframe). The relay's files and live stream are served as the platform serves them, without the sign-in.
 */
async function firstFrames(relay: Relay, url: string, dir: string): Promise<Figure[]> {
    const hlsJs = readFileSync(path.resolve('node_modules/hls.js/dist/hls.min.js'));
    const lowLatency = (
        await build({
            entryPoints: [path.resolve('src/widgets/video/lowLatency.ts')],
            bundle: true,
            write: false,
            format: 'iife',
            globalName: 'LowLatency',
            target: 'es2022',
        })
    ).outputFiles[0].text;
    const frame = `const v = document.getElementById('v');
        v.requestVideoFrameCallback(() => (window.firstFrame = true));`;
    const pages: Record<string, string> = {
        hls: `<video id=v muted autoplay playsinline></video><script src="/hls.js"></script><script>${frame}
            const h = new Hls({ liveSyncDurationCount: 2, manifestLoadingMaxRetry: 30, manifestLoadingRetryDelay: 100 });
            h.loadSource('/s/' + location.hash.slice(1) + '/index.m3u8'); h.attachMedia(v);</script>`,
        // Where MSE is missing the player hands the playlist to the browser's own HLS (Chromium 156 has it).
        native: `<video id=v muted autoplay playsinline></video><script>${frame}
            v.src = '/s/' + location.hash.slice(1) + '/index.m3u8';</script>`,
        live: `<video id=v muted autoplay playsinline></video><script src="/lowLatency.js"></script><script>${frame}
            LowLatency.playLowLatency(v, '/live/' + location.hash.slice(1), {
                onUnsupported: (r) => (window.failed = r), onEnded: (r) => (window.failed = r) });</script>`,
    };
    const http = createServer((req, res) => {
        const u = req.url ?? '';
        const send = (type: string, body: string | Buffer) => {
            res.setHeader('content-type', type);
            res.end(body);
        };
        if (u.startsWith('/page/')) return send('text/html', pages[u.slice(6)] ?? '');
        if (u === '/hls.js') return send('text/javascript', hlsJs);
        if (u === '/lowLatency.js') return send('text/javascript', lowLatency);
        if (u.startsWith('/live/')) {
            const feed = relay.live(Number(u.slice(6)));
            void feed?.ready().then((codec) => {
                const body = codec ? feed.open() : undefined;
                if (!body) {
                    res.statusCode = 404;
                    return res.end();
                }
                res.setHeader('content-type', `video/mp4; codecs="${codec}"`);
                Readable.fromWeb(body as import('node:stream/web').ReadableStream).pipe(res);
            });
            if (!feed) res.writeHead(404).end();
            return;
        }
        const file = path.join(dir, u.replace(/^\/s\//, ''));
        if (!u.startsWith('/s/') || !existsSync(file)) return res.writeHead(404).end();
        res.end(readFileSync(file));
    }).listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    const browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const times: Record<string, number[]> = { hls: [], native: [], live: [] };
    const joins: Record<string, number[]> = { hls: [], native: [], live: [] };
    const waitFrame = (tab: Page) =>
        tab.waitForFunction(
            () => {
                const w = window as unknown as { firstFrame?: boolean; failed?: string };
                if (w.failed) throw new Error(w.failed);
                return w.firstFrame;
            },
            undefined,
            { timeout: 30_000, polling: 10 },
        );
    try {
        let id = 1000;
        for (let round = 0; round < ROUNDS; round++) {
            for (const kind of ['hls', 'native', 'live'] as const) {
                const tab = await browser.newPage();
                // The page's own load is not the relay's: loaded once before the push, opened by hash after it.
                await tab.goto(`${base}/page/${kind}#0`);
                id++;
                const started = performance.now();
                relay.start(id, url);
                if (kind !== 'live') await untilHls(relay, id);
                await tab.goto(`${base}/page/${kind}#${id}`);
                await tab.reload();
                await waitFrame(tab);
                times[kind].push(performance.now() - started);
                // A second viewer of the stream now playing: from opening the page to its first frame.
                const second = await browser.newPage();
                await second.goto(`${base}/page/${kind}#0`);
                const opened = performance.now();
                await second.goto(`${base}/page/${kind}#${id}`);
                await second.reload();
                await waitFrame(second);
                joins[kind].push(performance.now() - opened);
                relay.stop(id);
                await second.close();
                await tab.close();
            }
        }
    } finally {
        await browser.close();
        http.close();
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const join = (kind: string, label: string): Figure => ({
        name: `open_playing_to_first_frame_${label}_median`,
        value: Math.round(median(joins[kind])),
        unit: 'ms',
    });
    return [
        join('live', 'low_latency'),
        join('hls', 'hls'),
        join('native', 'native_hls'),
        { name: 'push_to_first_frame_low_latency_median', value: Math.round(median(times.live)), unit: 'ms' },
        { name: 'push_to_first_frame_low_latency_max', value: Math.round(Math.max(...times.live)), unit: 'ms' },
        { name: 'push_to_first_frame_hls_median', value: Math.round(median(times.hls)), unit: 'ms' },
        { name: 'push_to_first_frame_hls_max', value: Math.round(Math.max(...times.hls)), unit: 'ms' },
        { name: 'push_to_first_frame_native_hls_median', value: Math.round(median(times.native)), unit: 'ms' },
        { name: 'push_to_first_frame_native_hls_max', value: Math.round(Math.max(...times.native)), unit: 'ms' },
    ];
}

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
                        await untilHls(relay, id);
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

            figures.push(...(await firstFrames(relay, source.url, dir)));
        } finally {
            await relay.close();
            await source.close();
            rmSync(dir, { recursive: true, force: true });
        }
        return figures;
    },
};

export default group;
