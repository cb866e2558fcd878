import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureServerBuild } from '../../scripts/server-build.mjs';
import { cpuMsOf } from './procStat';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- demoCost`: what the live demo (DEMO_LIVE, server/seed/live.ts) costs at idle, beside the same
 * server with `DEMO_LIVE=0` in the same run. Each run starts both on fresh data directories at once (the compiled
 * server, as `npm start` runs it), lets the first start's seed go in, waits DEMO_COST_IDLE_S (default 120 s) and
 * reads, from /proc: the server process's RSS, its ffmpeg children's RSS and PSS (the camera; counted apart: they are
 * other processes, mostly shared libraries), the CPU of both over the last 60 s, and the server's own
 * process.memoryUsage() (a preload prints it on SIGUSR2): the main thread's JS heap and its ArrayBuffers, and the
 * rest of the RSS (the PGlite worker's WebAssembly memory, code, native buffers). Three runs (DEMO_COST_RUNS),
 * medians printed; the load average beside them (this machine is shared: say it with the figures).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const RUNS = Number(process.env.DEMO_COST_RUNS ?? 3);
const IDLE_MS = Number(process.env.DEMO_COST_IDLE_S ?? 120) * 1000;
/** First port of the six each server takes (DEMO_COST_PORT, else a random one). */
const PORT_BASE = Number(process.env.DEMO_COST_PORT ?? 20000 + Math.floor(Math.random() * 20000));

interface Sample {
    rssMb: number;
    heapUsedMb: number;
    arrayBuffersMb: number;
    /** RSS less the main thread's heap and external memory: the PGlite worker, code, native buffers. */
    restMb: number;
    ffmpegRssMb: number;
    ffmpegPssMb: number;
    /** % of one core over the last 60 s: the server, and its ffmpeg children. */
    cpuPct: number;
    ffmpegCpuPct: number;
    connected: number;
}

const kb = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
const mb = (kbytes: number) => Math.round(kbytes / 102.4) / 10;

function childrenOf(pid: number): number[] {
    const out: number[] = [];
    for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
            const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
            const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            if (ppid === pid) out.push(Number(entry), ...childrenOf(Number(entry)));
        } catch {
            // gone meanwhile
        }
    }
    return out;
}

function ffmpegOf(pid: number) {
    const ids = childrenOf(pid).filter((id) => {
        try {
            return readFileSync(`/proc/${id}/comm`, 'utf8').trim() === 'ffmpeg';
        } catch {
            return false;
        }
    });
    let rss = 0;
    let pss = 0;
    let cpu = 0;
    for (const id of ids) {
        try {
            rss += kb(readFileSync(`/proc/${id}/status`, 'utf8'), 'VmRSS');
            pss += kb(readFileSync(`/proc/${id}/smaps_rollup`, 'utf8'), 'Pss');
            cpu += cpuMsOf(id);
        } catch {
            // ended meanwhile
        }
    }
    return { rss, pss, cpu };
}

const PRELOAD = path.join(os.tmpdir(), 'iot-bench-demo-cost-preload.cjs');

interface Running {
    child: ChildProcess;
    url: string;
    output: () => string;
    dir: string;
}

async function startServer(compiled: string, port: number, live: boolean): Promise<Running> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `iot-bench-demo-${live ? 'live' : 'quiet'}-`));
    const child = spawn(process.execPath, ['--require', PRELOAD, compiled], {
        cwd: ROOT,
        env: {
            ...process.env,
            DATA_DIR: dir,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_PASSWORD: 'Bench_123456',
            // The broker on a port of its own: the live demo's devices connect in-process either way.
            MQTT_PORT: String(port + 1),
            AMQP_PORT: '0',
            SIP_PORT: '0',
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            SEED_DEMO: '1',
            DEMO_LIVE: live ? '1' : '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
        if (performance.now() - started > 300_000) throw new Error(`no answer in 300 s: ${output}`);
        try {
            await fetch(`${url}/sso/login`);
            break;
        } catch {
            await new Promise((r) => setTimeout(r, 50));
        }
    }
    return { child, url, output: () => output, dir };
}

async function signIn(url: string) {
    // A few tries: on a loaded machine a busy server's connection can be reset ('fetch failed').
    for (let attempt = 1; ; attempt++) {
        try {
            const login = await fetch(`${url}/sso/login`, {
                method: 'POST',
                body: new URLSearchParams({ username: 'admin', password: 'Bench_123456' }),
                redirect: 'manual',
            });
            return login.headers.get('set-cookie')?.split(';')[0] ?? '';
        } catch (err) {
            if (attempt >= 5) throw err;
            await new Promise((r) => setTimeout(r, 2000));
        }
    }
}

/** The server's process.memoryUsage(), printed by the preload on SIGUSR2. */
async function memoryUsage(s: Running): Promise<NodeJS.MemoryUsage> {
    const before = s.output().length;
    s.child.kill('SIGUSR2');
    for (let i = 0; i < 100; i++) {
        const m = /DEMO_COST_MEMORY (\{.*\})/.exec(s.output().slice(before));
        if (m) return JSON.parse(m[1]) as NodeJS.MemoryUsage;
        await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no memory usage printed');
}

async function sample(s: Running, cpuFrom: { server: number; ffmpeg: number }, ms: number): Promise<Sample> {
    const pid = s.child.pid!;
    const cookie = await signIn(s.url);
    const real = (await (await fetch(`${s.url}/api/monitor/real`, { headers: { cookie } })).json()) as {
        data?: { connected?: number };
    };
    const usage = await memoryUsage(s);
    const rss = kb(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
    const ff = ffmpegOf(pid);
    const MB = 1024 * 1024;
    return {
        rssMb: mb(rss),
        heapUsedMb: Math.round((usage.heapUsed / MB) * 10) / 10,
        arrayBuffersMb: Math.round((usage.arrayBuffers / MB) * 10) / 10,
        restMb: Math.round(((rss * 1024 - usage.heapTotal - usage.external) / MB) * 10) / 10,
        ffmpegRssMb: mb(ff.rss),
        ffmpegPssMb: mb(ff.pss),
        cpuPct: Math.round(((cpuMsOf(pid) - cpuFrom.server) / ms) * 1000) / 10,
        ffmpegCpuPct: Math.round(((ff.cpu - cpuFrom.ffmpeg) / ms) * 1000) / 10,
        connected: real.data?.connected ?? 0,
    };
}

async function stop(s: Running) {
    if (s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await new Promise((r) => s.child.once('exit', r));
    }
    rmSync(s.dir, { recursive: true, force: true });
}

/** Both variants at once on fresh data directories: after IDLE_MS, each one's sample. */
async function oneRun(compiled: string, run: number): Promise<{ quiet: Sample; live: Sample; load: number }> {
    const base = PORT_BASE + run * 20;
    const servers = await Promise.all([startServer(compiled, base, false), startServer(compiled, base + 10, true)]);
    try {
        // The first answer starts the seed (server/index.ts); sign in so it is in.
        await Promise.all(servers.map((s) => signIn(s.url)));
        const window = Math.min(60_000, IDLE_MS);
        await new Promise((r) => setTimeout(r, IDLE_MS - window));
        const from = servers.map((s) => ({ server: cpuMsOf(s.child.pid!), ffmpeg: ffmpegOf(s.child.pid!).cpu }));
        await new Promise((r) => setTimeout(r, window));
        const [quiet, live] = [await sample(servers[0], from[0], window), await sample(servers[1], from[1], window)];
        const load = os.loadavg()[0];
        console.log(`demoCost: run ${run + 1}: load average ${load.toFixed(1)}`);
        console.log(`  DEMO_LIVE=0 ${JSON.stringify(quiet)}`);
        console.log(`  DEMO_LIVE=1 ${JSON.stringify(live)}`);
        if (live.connected === 0) throw new Error(`the live demo connected nothing: ${servers[1].output()}`);
        return { quiet, live, load };
    } finally {
        await Promise.all(servers.map(stop));
    }
}

const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : Math.round(((sorted[mid - 1] + sorted[mid]) / 2) * 10) / 10;
};

const group: BenchGroup = {
    name: 'demoCost',
    async run() {
        writeFileSync(
            PRELOAD,
            "process.on('SIGUSR2', () => console.log('DEMO_COST_MEMORY ' + JSON.stringify(process.memoryUsage())));\n",
        );
        const compiled = await ensureServerBuild(ROOT);
        if (!compiled || !existsSync(compiled)) throw new Error('dist-server/index.mjs could not be built');
        const runs: Array<Awaited<ReturnType<typeof oneRun>>> = [];
        for (let i = 0; i < RUNS; i++) runs.push(await oneRun(compiled, i));
        const figures: Figure[] = [];
        const pick = (k: keyof Sample, which: 'quiet' | 'live') => median(runs.map((r) => r[which][k]));
        for (const [k, unit] of [
            ['rssMb', 'MB'],
            ['heapUsedMb', 'MB'],
            ['arrayBuffersMb', 'MB'],
            ['restMb', 'MB'],
            ['cpuPct', '% of a core'],
        ] as const) {
            figures.push({ name: `demo_live_0_${k}`, value: pick(k, 'quiet'), unit });
            figures.push({ name: `demo_live_1_${k}`, value: pick(k, 'live'), unit });
        }
        figures.push(
            {
                name: 'live_minus_quiet_server_rss',
                value: median(runs.map((r) => Math.round((r.live.rssMb - r.quiet.rssMb) * 10) / 10)),
                unit: 'MB',
            },
            { name: 'demo_live_1_ffmpeg_rss', value: pick('ffmpegRssMb', 'live'), unit: 'MB' },
            { name: 'demo_live_1_ffmpeg_pss', value: pick('ffmpegPssMb', 'live'), unit: 'MB' },
            { name: 'demo_live_1_ffmpeg_cpu', value: pick('ffmpegCpuPct', 'live'), unit: '% of a core' },
            { name: 'load_average', value: median(runs.map((r) => Math.round(r.load * 10) / 10)), unit: '' },
        );
        return figures;
    },
};

export default group;
