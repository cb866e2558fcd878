import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTemplate } from '../../server/db/template';
import { ensureServerBuild } from '../../scripts/server-build.mjs';
import type { BenchGroup, Figure } from './run';

const RUNS = 5;
/** The longest a start may take: initdb and every migration (the variant without a template) near 60 s under load. */
const LIMIT_MS = 180_000;
const ROOT = path.resolve(import.meta.dirname, '../..');

interface Start {
    /** Spawn to the first HTTP answer (the sign-on page, GET /sso/login). */
    firstAnswer: number;
    /** Spawn to the start-up banner. */
    banner: number;
    /** Spawn to the demo content being readable (the demo products counted on the sign-on-free probe below). */
    seeded: number;
}

/**
 * Stops the server and waits for its exit. One that exited already (it failed to start) has fired its 'exit' event:
 * waiting for another would leave nothing in the event loop, and Node would end the bench quietly with no figures.
 */
async function stopped(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
}

/**
 * One `npm start`-like server (node --import tsx server/index.ts, as scripts/start.mjs runs it) on an empty data
 * directory: when it first answers, when it prints its banner, and when the demo seed is in (the admin signs in
 * and lists products until there are some).
 */
async function coldStart(command: string[], env: Record<string, string> = {}): Promise<Start> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-cold-'));
    // A port the system has just given out: a random one collided with the machine's own outgoing connections.
    const { freePort } = await import('../e2e/support');
    const port = await freePort();
    const started = performance.now();
    const child = spawn(process.execPath, command, {
        env: {
            ...process.env,
            DATA_DIR: dir,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_PASSWORD: 'Bench_123456',
            MQTT_PORT: '0',
            AMQP_PORT: '0',
            SIP_PORT: '0',
            // TLS listeners on free ports too (8443/8883/5671 may be another run's).
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let banner = 0;
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (!banner && output.includes('已启动')) banner = performance.now() - started;
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    try {
        let firstAnswer = 0;
        while (!firstAnswer) {
            if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
            if (performance.now() - started > LIMIT_MS) throw new Error(`no answer in ${LIMIT_MS / 1000} s: ${output}`);
            try {
                await fetch(`${url}/sso/login`);
                firstAnswer = performance.now() - started;
            } catch {
                await new Promise((r) => setTimeout(r, 10));
            }
        }
        const login = await fetch(`${url}/sso/login`, {
            method: 'POST',
            body: new URLSearchParams({ username: 'admin', password: 'Bench_123456' }),
            redirect: 'manual',
        });
        const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
        let seeded = 0;
        while (!seeded) {
            if (performance.now() - started > LIMIT_MS)
                throw new Error(`no demo products in ${LIMIT_MS / 1000} s: ${output}`);
            const res = await fetch(`${url}/api/product?pageNumber=1&pageSize=1`, { headers: { cookie } });
            const body = (await res.json()) as { data?: { total?: number } };
            if ((body.data?.total ?? 0) > 0) seeded = performance.now() - started;
            else await new Promise((r) => setTimeout(r, 20));
        }
        return { firstAnswer, banner, seeded };
    } finally {
        await stopped(child);
        rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * `npm run bench -- coldStart`: the median of five starts on an empty data directory as `npm start` runs them (the
 * compiled server, dist-server/index.mjs, from the migrated template `npm install` builds), beside two anchors in the
 * same run, the starts interleaved: the sources through tsx with the template (the previous build's start), and the
 * sources without a template (initdb and every migration).
 */
const group: BenchGroup = {
    name: 'coldStart',
    async run() {
        await buildTemplate();
        const compiled = await ensureServerBuild(ROOT);
        if (!compiled) throw new Error('dist-server/index.mjs could not be built');
        const sources = ['--import', 'tsx', path.join(ROOT, 'server', 'index.ts')];
        const noTemplate = { PGLITE_TEMPLATE_DIR: path.join(os.tmpdir(), 'iot-bench-no-template') };
        const variants = [
            { suffix: '', start: () => coldStart([compiled]) },
            { suffix: '_tsx_sources', start: () => coldStart(sources) },
            { suffix: '_tsx_without_template', start: () => coldStart(sources, noTemplate) },
        ];
        const runs = variants.map(() => [] as Start[]);
        // Each start is told as it ends: fifteen starts take minutes on a loaded machine.
        for (let i = 0; i < RUNS; i++)
            for (const [k, v] of variants.entries()) {
                const start = await v.start().catch((err: Error) => {
                    throw new Error(`run ${i + 1} ${v.suffix || '_compiled'}: ${err.message}`);
                });
                runs[k].push(start);
                const ms = (n: number) => `${Math.round(n)} ms`;
                console.error(
                    `coldStart: run ${i + 1}/${RUNS} ${v.suffix || '_compiled'}: first answer ${ms(start.firstAnswer)}, ` +
                        `banner ${ms(start.banner)}, demo data ${ms(start.seeded)}`,
                );
            }
        const median = (of: Start[], pick: (s: Start) => number) =>
            Math.round(of.map(pick).sort((a, b) => a - b)[Math.floor(of.length / 2)]);
        const figures: Figure[] = [];
        for (const [k, { suffix }] of variants.entries()) {
            const of = runs[k];
            figures.push(
                {
                    name: `empty_data_dir_to_first_answer${suffix}`,
                    value: median(of, (s) => s.firstAnswer),
                    unit: 'ms',
                },
                { name: `empty_data_dir_to_banner${suffix}`, value: median(of, (s) => s.banner), unit: 'ms' },
                { name: `empty_data_dir_to_demo_data${suffix}`, value: median(of, (s) => s.seeded), unit: 'ms' },
            );
        }
        return figures;
    },
};

export default group;
