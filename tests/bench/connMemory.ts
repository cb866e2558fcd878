import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compiled } from './compiled';
import { connectAll, disconnectAll, type Connected } from './connMemory/devices';
import { hasMosquitto, MOSQUITTO, startMosquitto } from './connMemory/mosquitto';
import type { BenchDevice } from './harness';
import { lineAsker, lineReader } from './lineReader';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- connMemory` (issue 41, "memory that is returned"): the platform in a process of its own
 * (connMemory/platformProcess.ts: PGlite in a data directory, the whole app and broker, bundled as `npm start` runs it,
 * with --expose-gc) and Mosquitto (a process of the bench's own) beside it, each taking CONN_BENCH_DEVICES devices
 * (default 10,000) five rounds: connect, sign in with Alibaba's scheme, subscribe the SDK's filters and the OTA topic
 * (connMemory/devices.ts), idle, disconnect. Per round: RSS and heap before, connected, after a full GC, after the
 * devices left and after a GC again; KB per connected device (RSS connected after GC less before, over the devices).
 * CONN_BENCH_CLEAN=0: the devices connect with clean=false (the SDK's default) instead of a clean session.
 * CONN_BENCH_PROFILE=FILE: what round 1's devices left alive on the heap once connected, sampled by V8's heap profiler
 * (platformProcess.ts `profile`), is written to FILE (a .heapprofile for Chrome DevTools).
 * The machine is shared: the load average is printed beside the figures.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = Number(process.env.CONN_BENCH_DEVICES ?? 10_000);
const CLEAN = process.env.CONN_BENCH_CLEAN !== '0';
const PROFILE = process.env.CONN_BENCH_PROFILE;
const ROUNDS = 5;

const T0 = performance.now();
const step = (what: string) =>
    process.stderr.write(`connMemory: ${((performance.now() - T0) / 1000).toFixed(1)} s ${what}\n`);
const mb = (bytes: number) => Math.round(bytes / 104857.6) / 10;
const kbPer = (bytes: number) => Math.round(bytes / 1024 / DEVICES);

interface Stats {
    rss: number;
    heapUsed: number;
    held: { clients: number; trieNodes: number; trieValues: number };
}

async function startPlatform() {
    const child = spawn(
        process.execPath,
        ['--expose-gc', await compiled('tests/bench/connMemory/platformProcess.ts')],
        {
            cwd: ROOT,
            env: { ...process.env, DEVICES: String(DEVICES) },
            stdio: ['pipe', 'pipe', 'inherit'],
        },
    );
    const next = lineReader(child, 'platform');
    const ready = JSON.parse(await next()) as { mqttPort: number; dataDir: string; devices: BenchDevice[] };
    const ask = lineAsker(child, next);
    const stop = async () => {
        child.kill('SIGKILL');
        if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
        rmSync(ready.dataDir, { recursive: true, force: true });
    };
    return { ...ready, ask, stop };
}

type Platform = Awaited<ReturnType<typeof startPlatform>>;

const line = (s: Stats) =>
    `RSS ${mb(s.rss)} MB heap ${mb(s.heapUsed)} MB (clients ${s.held.clients}, matcher ${s.held.trieNodes} nodes or keys, ${s.held.trieValues} values)`;

/** One platform round: connect all, GC, disconnect all, await aedes' last client, GC. */
async function platformRound(p: Platform, round: number, figures: Figure[]) {
    const profile = round === 1 && PROFILE;
    const before = await p.ask<Stats>('gc');
    if (profile) await p.ask('profile');
    const held = await connectAll(p.mqttPort, p.devices, CLEAN);
    const connected = await p.ask<Stats>('stats');
    if (profile) step(`heap profile: ${(await p.ask<{ file: string }>(`profiled ${path.resolve(profile)}`)).file}`);
    const connectedGc = await p.ask<Stats>('gc');
    await disconnectAll(held);
    let left = await p.ask<Stats>('stats');
    for (let i = 0; i < 600 && left.held.clients > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = await p.ask<Stats>('stats');
    }
    const leftGc = await p.ask<Stats>('gc');
    const granted = held.reduce((n, d) => n + d.granted, 0) / held.length;
    step(`platform round ${round} (${held.length} devices, ${granted} filters granted each):`);
    step(`  before          ${line(before)}`);
    step(`  connected       ${line(connected)}`);
    step(`  connected, GC   ${line(connectedGc)}`);
    step(`  left            ${line(left)}`);
    step(`  left, GC        ${line(leftGc)}`);
    const perDevice = kbPer(connectedGc.rss - before.rss);
    const heapPerDevice = kbPer(connectedGc.heapUsed - before.heapUsed);
    step(`  ${perDevice} KB RSS, ${heapPerDevice} KB heap per connected device (after GC)`);
    figures.push(
        { name: `round${round}.platform_rss_connected`, value: mb(connectedGc.rss), unit: 'MB' },
        { name: `round${round}.platform_rss_left`, value: mb(leftGc.rss), unit: 'MB' },
        { name: `round${round}.platform_kb_per_device`, value: perDevice, unit: 'KB' },
        { name: `round${round}.platform_heap_kb_per_device`, value: heapPerDevice, unit: 'KB' },
    );
    return { before, leftGc };
}

/**
 * One Mosquitto round: its RSS before, with the devices connected, and after they left. Mosquitto keeps what it
 * allocated once (its RSS stays at the first round's peak), so KB per device is over its RSS as started (`start`).
 */
async function mosquittoRound(port: number, rss: () => number, devices: BenchDevice[], round: number, start: number) {
    const before = rss();
    const held: Connected[] = await connectAll(port, devices, CLEAN);
    const connected = rss();
    await disconnectAll(held);
    await new Promise((r) => setTimeout(r, 1000));
    const left = rss();
    const perDevice = kbPer(connected - start);
    step(
        `mosquitto round ${round}: RSS ${mb(before)} MB before, ${mb(connected)} MB connected, ${mb(left)} MB left; ${perDevice} KB per device`,
    );
    return { before, connected, left, perDevice };
}

const group: BenchGroup = {
    name: 'connMemory',
    missing: () => (hasMosquitto() ? undefined : `${MOSQUITTO} 不存在（apt-get install mosquitto）`),
    async run() {
        step(`platform starting (${DEVICES} devices to seed, PGlite; clean session: ${CLEAN})`);
        const platform = await startPlatform();
        const { freePort } = await import('../e2e/support');
        const mosquittoPort = await freePort();
        const mosquitto = await startMosquitto(mosquittoPort);
        const figures: Figure[] = [];
        try {
            const ends: number[] = [];
            const mosquittoStart = mosquitto.rss();
            for (let round = 1; round <= ROUNDS; round++) {
                const { before, leftGc } = await platformRound(platform, round, figures);
                if (round === 1) ends.push(before.rss);
                ends.push(leftGc.rss);
                const m = await mosquittoRound(mosquittoPort, mosquitto.rss, platform.devices, round, mosquittoStart);
                figures.push({ name: `round${round}.mosquitto_kb_per_device`, value: m.perDevice, unit: 'KB' });
            }
            const load = os.loadavg().map((l) => l.toFixed(2));
            const growth = Math.round(((ends[ROUNDS] - ends[1]) / ends[1]) * 1000) / 10;
            step(
                `platform RSS after the devices left: ${ends.map(mb).join(' → ')} MB (before, rounds 1-${ROUNDS}); ` +
                    `round ${ROUNDS} vs round 1: ${growth}% — goal within 10%`,
            );
            step(`load average ${load.join(' ')}`);
            figures.push(
                { name: 'platform_rss_before', value: mb(ends[0]), unit: 'MB' },
                { name: 'platform_rss_left_round5_vs_round1', value: growth, unit: '%' },
                { name: 'loadAverage', value: Number(load[0]), unit: '' },
            );
            return figures;
        } finally {
            await mosquitto.stop();
            await platform.stop();
        }
    },
};

export default group;
