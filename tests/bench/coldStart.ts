import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTemplate } from '../../server/db/template';
import type { BenchGroup, Figure } from './run';

const RUNS = 3;

interface Start {
    /** Spawn to the first HTTP answer (the sign-on page, GET /sso/login). */
    firstAnswer: number;
    /** Spawn to the start-up banner. */
    banner: number;
    /** Spawn to the demo content being readable (the demo products counted on the sign-on-free probe below). */
    seeded: number;
}

/**
 * One `npm start`-like server (node --import tsx server/index.ts, as scripts/start.mjs runs it) on an empty data
 * directory: when it first answers, when it prints its banner, and when the demo seed is in (the admin signs in
 * and lists products until there are some).
 */
async function coldStart(env: Record<string, string> = {}): Promise<Start> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'iot-bench-cold-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('server/index.ts')], {
        env: {
            ...process.env,
            DATA_DIR: dir,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_PASSWORD: 'Bench_123456',
            MQTT_PORT: '0',
            AMQP_PORT: '0',
            SIP_PORT: '0',
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
            if (performance.now() - started > 60_000) throw new Error(`no answer in 60 s: ${output}`);
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
            if (performance.now() - started > 60_000) throw new Error(`no demo products in 60 s: ${output}`);
            const res = await fetch(`${url}/api/product?pageNumber=1&pageSize=1`, { headers: { cookie } });
            const body = (await res.json()) as { data?: { total?: number } };
            if ((body.data?.total ?? 0) > 0) seeded = performance.now() - started;
            else await new Promise((r) => setTimeout(r, 20));
        }
        return { firstAnswer, banner, seeded };
    } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
        rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * `npm run bench -- coldStart`: the median of three starts on an empty data directory, from the migrated template
 * `npm install` builds (server/db/template.ts), beside the anchor in the same run: the same start without a template
 * (initdb and every migration), the starts interleaved.
 */
const group: BenchGroup = {
    name: 'coldStart',
    async run() {
        await buildTemplate();
        const runs: Start[] = [];
        const anchor: Start[] = [];
        for (let i = 0; i < RUNS; i++) {
            runs.push(await coldStart());
            anchor.push(await coldStart({ PGLITE_TEMPLATE_DIR: path.join(os.tmpdir(), 'iot-bench-no-template') }));
        }
        const median = (of: Start[], pick: (s: Start) => number) => Math.round(of.map(pick).sort((a, b) => a - b)[1]);
        const figures: Figure[] = [];
        for (const [suffix, of] of [
            ['', runs],
            ['_without_template', anchor],
        ] as const) {
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
