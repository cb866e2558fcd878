import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { children, createFmp4Splitter, type Fragment } from '../../server/video/fmp4';
import { createVideoRelay, LOOP_PREFIX, type VideoRelay } from '../../server/video/relay';

/**
 * The demo camera's source: a local clip the relay plays in a loop, in real time, by itself (server/video/clipLoop.ts):
 * no ffmpeg runs while it plays; a viewer of the low-latency path sees one continuous stream over the loop's seams,
 * the HLS playlist rolls on with a discontinuity where the clip starts again.
 */

let dir: string;
let relay: VideoRelay;
let clip: string;

/** ffmpeg processes whose parent is this process. */
function ffmpegChildren(): number {
    let n = 0;
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
            const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!;
            if (comm === 'ffmpeg' && Number(rest.split(' ')[1]) === process.pid) n++;
        } catch {
            // gone meanwhile
        }
    }
    return n;
}

/** The decode time (tfdt) of a fragment. */
function decodeTime(f: Fragment): bigint {
    for (const [type, s, e] of children(f.bytes, 0, f.bytes.length)) {
        if (type !== 'moof') continue;
        for (const [t, ts, te] of children(f.bytes, s, e)) {
            if (t !== 'traf') continue;
            for (const [u, us] of children(f.bytes, ts, te)) if (u === 'tfdt') return f.bytes.readBigUInt64BE(us + 4);
        }
    }
    throw new Error('no tfdt');
}

async function until<T>(what: () => T | undefined, ms = 10_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
        const v = what();
        if (v !== undefined) return v;
        if (Date.now() > end) throw new Error('timed out');
        await new Promise((r) => setTimeout(r, 50));
    }
}

beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'clip-loop-'));
    clip = path.join(dir, 'clip.mpg');
    // One second (15 frames, one keyframe): the loop's seam comes every second.
    const made = spawnSync('ffmpeg', [
        ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=15', '-t', '1'],
        ...['-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', '15', '-f', 'mpeg', clip],
    ]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    relay = createVideoRelay({ dir: path.join(dir, 'streams') });
});

afterAll(async () => {
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
});

describe('a looped clip played by the server', () => {
    it('plays without ffmpeg, one continuous low-latency stream across the seams, HLS with discontinuities', async () => {
        relay.start(7, `${LOOP_PREFIX}${clip}`);
        const feed = relay.live(7)!;
        expect(await feed.ready(10_000)).toMatch(/^avc1\./);
        const body = feed.open()!;
        const frags: Fragment[] = [];
        let codec: string | undefined;
        const splitter = createFmp4Splitter({
            onInit: (_init, c) => (codec = c),
            onFragment: (f) => frags.push(f),
            onError: (m) => {
                throw new Error(m);
            },
        });
        const reader = body.getReader();
        // Forty frames: over two seams of a 15-frame clip.
        while (frags.length < 40) {
            const { done, value } = await reader.read();
            if (done) break;
            splitter.push(Buffer.from(value));
        }
        await reader.cancel();
        expect(codec).toMatch(/^avc1\./);
        expect(frags.length).toBeGreaterThanOrEqual(40);
        expect(frags[0].key).toBe(true);
        // Each frame follows the one before by one frame's time, across the seams too: one stream to the player.
        const times = frags.map(decodeTime);
        const step = times[1] - times[0];
        expect(step).toBeGreaterThan(0n);
        for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(step);
        // A keyframe at each pass's start: 15 frames apart.
        const keys = frags.flatMap((f, i) => (f.key ? [i] : []));
        expect(keys.length).toBeGreaterThanOrEqual(3);
        for (let i = 1; i < keys.length; i++) expect(keys[i] - keys[i - 1]).toBe(15);

        expect(relay.status(7)).toMatchObject({ state: 'playing', mode: 'copy', codec: 'h264' });
        expect(ffmpegChildren()).toBe(0);

        // The playlist rolls on: by now (over 2.6 s) the clip has started again and the playlist says so.
        const playlist = await until(() => {
            const p = relay.file(7, 'index.m3u8', 'viewer');
            const text = p && readFileSync(p.path, 'utf8');
            return text && text.includes('#EXT-X-DISCONTINUITY\n') ? text : undefined;
        });
        expect(playlist).toMatch(/#EXT-X-MEDIA-SEQUENCE:\d+/);
        const named = playlist.split('\n').filter((l) => l.startsWith('seg_'));
        expect(named.length).toBeGreaterThan(0);
        for (const name of named) expect(relay.file(7, name, 'viewer')?.size).toBeGreaterThan(0);
        expect(relay.status(7).viewers).toBe(1);

        const streamDir = path.join(dir, 'streams', '7');
        relay.stop(7);
        expect(relay.status(7).state).toBe('stopped');
        expect(existsSync(streamDir)).toBe(false);
    });
});
