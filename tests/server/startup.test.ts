import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/client';
import { DataDirLockedError } from '../../server/db/lock';
import { DEMO_DEVICES } from '../../server/seed/devices';
import { ROOT } from './support';
import { serverCommand } from '../serverBundle';

/**
 * The real `server/index.ts` in child processes on a temp DATA_DIR (always PGlite: the lock is about its
 * directory), plus the data-directory lock in-process.
 */
const started: ChildProcess[] = [];
afterAll(() => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Run {
    child: ChildProcess;
    output: () => string;
    exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Run {
    const { DATABASE_URL: _db, ADMIN_PASSWORD: _pw, ...parent } = process.env;
    const child = spawn(process.execPath, serverCommand(), {
        cwd: ROOT,
        env: {
            ...parent,
            HOST: '127.0.0.1',
            SIP_PORT: '0',
            // TLS listeners on free ports too (8443/8883/5671 may be another run's).
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            PUBLIC_DIR: path.join(os.tmpdir(), 'no-console-build'),
            ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stderr!.on('data', (d) => (text += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => text, exited };
}

async function ready(run: Run): Promise<{ port: number; text: string }> {
    const deadline = Date.now() + 60_000;
    while (!run.output().includes('按 Ctrl+C 停止')) {
        if (run.child.exitCode !== null || Date.now() > deadline)
            throw new Error(`server did not start:\n${run.output()}`);
        await new Promise((r) => setTimeout(r, 100));
    }
    const port = Number(/控制台: http:\/\/127\.0\.0\.1:(\d+)\//.exec(run.output())?.[1]);
    return { port, text: run.output() };
}

/** The first start's seed goes in after the server answers, and says so when done. */
async function printed(run: Run, text: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!run.output().includes(text)) {
        if (run.child.exitCode !== null || Date.now() > deadline)
            throw new Error(`never printed ${text}:\n${run.output()}`);
        await new Promise((r) => setTimeout(r, 50));
    }
}

const signIn = (port: number, password: string) =>
    fetch(`http://127.0.0.1:${port}/sso/login`, {
        method: 'POST',
        body: new URLSearchParams({ username: 'admin', password }),
        redirect: 'manual',
    });

describe('server/index.ts', () => {
    it('starts, prints the generated password once, refuses a second process on its data directory and a taken port, and stops cleanly', async () => {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-start-'));
        const first = startServer({ DATA_DIR: dataDir, PORT: '0' });
        const { port, text } = await ready(first);
        expect(text).toContain('物联网设备接入管理平台 已启动');
        await printed(first, `数据库: PGlite（${path.join(dataDir, 'pgdata')}），已写入演示数据`);
        const password = /登录: admin \/ ([A-Za-z0-9]{16})（随机生成/.exec(text)?.[1];
        expect(password, text).toBeDefined();
        expect((await signIn(port, password!)).status).toBe(302);

        const second = startServer({ DATA_DIR: dataDir, PORT: '0' });
        expect(await second.exited).toBe(1);
        expect(second.output()).toContain(`数据目录 ${path.join(dataDir, 'pgdata')} 正被另一个进程`);
        expect(second.output()).toContain('refusing to start');

        const otherDir = mkdtempSync(path.join(os.tmpdir(), 'iot-start-'));
        const taken = startServer({ DATA_DIR: otherDir, PORT: String(port) });
        expect(await taken.exited).toBe(1);
        expect(taken.output()).toContain(`端口 ${port} 已被占用，请用 PORT 指定其他端口。`);

        first.child.kill('SIGTERM');
        expect(await first.exited).toBe(0);
        expect(existsSync(path.join(dataDir, 'pgdata.lock'))).toBe(false);

        const again = startServer({ DATA_DIR: dataDir, PORT: '0' });
        const restarted = await ready(again);
        expect(restarted.text).not.toContain(password!);
        expect(restarted.text).toContain('登录: admin / 首次启动时显示的密码');
        expect(restarted.text).not.toContain('已写入');
        expect((await signIn(restarted.port, password!)).status).toBe(302);
        // The live demo's simulations (one per product of its live devices) run again, as running simulations do.
        const simulations = new Set(DEMO_DEVICES.filter((d) => d.live).map((d) => d.productName)).size;
        await printed(again, `设备模拟: 已恢复 ${simulations} 个运行中的模拟`);
        again.child.kill('SIGINT');
        expect(await again.exited).toBe(0);
    }, 180_000);

    it('takes ADMIN_PASSWORD on the first start and says so instead of printing it', async () => {
        const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-start-'));
        const run = startServer({ DATA_DIR: dataDir, PORT: '0', ADMIN_PASSWORD: 'Env_Pass_123', SEED_DEMO: '0' });
        const { port, text } = await ready(run);
        expect(text).toContain('登录: admin / ADMIN_PASSWORD 中设置的密码');
        expect(text).not.toContain('Env_Pass_123');
        await printed(run, '已写入基础数据');
        expect((await signIn(port, 'Env_Pass_123')).status).toBe(302);
        // An idle keep-alive connection outlives Node's 5 s default: a client reusing it after 6 s is answered on it
        // (with 5 s the server closed it, and a reuse racing that close met ECONNRESET).
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const get = () =>
            new Promise<{ status?: number; reused: boolean }>((resolve, reject) => {
                const req = http.get({ host: '127.0.0.1', port, path: '/health/live', agent }, (res) => {
                    res.resume();
                    res.on('end', () => resolve({ status: res.statusCode, reused: req.reusedSocket }));
                });
                req.on('error', reject);
            });
        expect(await get()).toEqual({ status: 200, reused: false });
        await new Promise((r) => setTimeout(r, 6_000));
        expect(await get()).toEqual({ status: 200, reused: true });
        agent.destroy();
        run.child.kill('SIGTERM');
        expect(await run.exited).toBe(0);
    }, 120_000);

    it('exits 1 with a clear message when another program holds the port', async () => {
        const blocker = createServer();
        await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
        const port = (blocker.address() as { port: number }).port;
        try {
            const run = startServer({
                DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'iot-start-')),
                PORT: String(port),
            });
            expect(await run.exited).toBe(1);
            expect(run.output()).toContain(`Port ${port} is already in use`);
        } finally {
            blocker.close();
        }
    }, 120_000);
});

describe('the data-directory lock', () => {
    it('refuses a second open of one PGlite directory, naming it, until the first closes', async () => {
        const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'iot-lock-')), 'pgdata');
        const first = await openDatabase({ pgliteDir: dir });
        try {
            const second = openDatabase({ pgliteDir: dir });
            await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
            await expect(openDatabase({ pgliteDir: dir })).rejects.toThrow(`数据目录 ${dir} 正被另一个进程`);
        } finally {
            await first.close();
        }
        const reopened = await openDatabase({ pgliteDir: dir });
        await reopened.close();
    }, 60_000);

    it('takes over a lock left by a process that died', async () => {
        const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'iot-lock-')), 'pgdata');
        const dead = spawn(process.execPath, ['-e', '']);
        await new Promise((r) => dead.on('exit', r));
        mkdirSync(dir, { recursive: true });
        mkdirSync(`${dir}.lock`);
        writeFileSync(`${dir}.pid`, JSON.stringify({ pid: dead.pid, hostname: os.hostname() }));
        const handle = await openDatabase({ pgliteDir: dir });
        await handle.close();
    }, 60_000);
});
