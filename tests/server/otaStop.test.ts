import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './support';
import { serverCommand } from '../serverBundle';

/**
 * Stopping `server/index.ts` (SIGTERM, SIGINT): the OTA scheduler (it runs every second once the broker attaches) is
 * closed before the database, so a stop prints no error. Before, its next run after the database closed logged
 * 「OTA 调度失败」.
 */
let child: ChildProcess | undefined;
const dirs: string[] = [];
afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('stop', () => {
    it.each(['SIGTERM', 'SIGINT'] as const)(
        '%s: the OTA scheduler stops before the database, no error printed',
        async (signal) => {
            const dataDir = mkdtempSync(path.join(os.tmpdir(), 'iot-ota-stop-'));
            dirs.push(dataDir);
            const { DATABASE_URL: _db, ...parent } = process.env;
            child = spawn(process.execPath, serverCommand(), {
                cwd: ROOT,
                env: {
                    ...parent,
                    HOST: '127.0.0.1',
                    DATA_DIR: dataDir,
                    PORT: '0',
                    MQTT_PORT: '0',
                    AMQP_PORT: '0',
                    SIP_PORT: '0',
                    HTTPS_PORT: '0',
                    MQTTS_PORT: '0',
                    AMQPS_PORT: '0',
                    SEED_DEMO: '0',
                    ADMIN_PASSWORD: 'Stop_Pass_123',
                    PUBLIC_DIR: path.join(os.tmpdir(), 'no-console-build'),
                },
                stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            child.stdout!.on('data', (d) => (out += d));
            child.stderr!.on('data', (d) => (err += d));
            const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
            const deadline = Date.now() + 240_000;
            while (!out.includes('已写入基础数据')) {
                if (child.exitCode !== null || Date.now() > deadline)
                    throw new Error(`server did not start:\n${out}${err}`);
                await new Promise((r) => setTimeout(r, 100));
            }
            // A few scheduler runs, then the stop.
            await new Promise((r) => setTimeout(r, 2500));
            child.kill(signal);
            expect(await exited).toBe(0);
            expect(out).toContain(`收到 ${signal}，正在停止`);
            expect(err, out + err).toBe('');
        },
        150_000,
    );
});
