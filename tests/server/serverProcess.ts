import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';

/**
 * One platform server process (server/index.ts, or its bundle) on free ports, signed in as admin once it has printed
 * its addresses: what the cluster tests (spawnServer.ts) and the benches' clusters (tests/bench/soak) start. Free of
 * vitest, so that a bench run outside it can use it too.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
export const PASSWORD = 'Cluster_Pass1';

export interface ServerProcess {
    child: ChildProcess;
    url: string;
    mqttPort: number;
    amqpPort: number;
    cookie: string;
    /** A form-encoded (or JSON, when `json`) call signed in as admin: the answer's body. */
    api(
        method: string,
        target: string,
        body?: Record<string, unknown>,
        json?: boolean,
    ): Promise<{ code: number; msg?: string; data: Record<string, unknown> }>;
    /** Stops the process (SIGTERM) and waits for it. */
    stop(): Promise<void>;
    /** What the process has printed (stdout and stderr), for a failing test's message. */
    output(): string;
}

export interface StartOptions {
    /** Wait for the demo seed to be written (the first process on a fresh database writes it). */
    waitForSeed?: boolean;
    /** Wait for the AMQP line (AMQP_PORT 0). */
    amqp?: boolean;
    /** Extra environment (REDIS_URL, ...). */
    env?: Record<string, string>;
    /** A data directory to reuse (a restart); else a fresh one. */
    dataDir?: string;
}

/** Starts `node command…` with `env` over the defaults (every port free, ADMIN_PASSWORD), as `opts` says to wait. */
export async function spawnPlatform(
    command: string[],
    env: Record<string, string>,
    opts: Pick<StartOptions, 'waitForSeed' | 'amqp'> = {},
): Promise<ServerProcess> {
    const child = spawn(process.execPath, command, {
        cwd: ROOT,
        env: {
            ...process.env,
            PORT: '0',
            HOST: '127.0.0.1',
            MQTT_PORT: '0',
            AMQP_PORT: '0',
            SIP_PORT: '0',
            // TLS listeners on free ports too (8443/8883/5671 may be another run's).
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            ADMIN_PASSWORD: PASSWORD,
            ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    let url = '';
    let mqttPort = 0;
    let amqpPort = 0;
    let output = '';
    child.stderr!.on('data', (d) => (output += String(d)));
    const lines = createInterface({ input: child.stdout! }).on('line', (line) => (output += line + '\n'));
    await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
        lines.on('line', (line) => {
            url ||= /控制台: (http:\/\/\S+?)\/?$/.exec(line)?.[1] ?? '';
            mqttPort ||= Number(/MQTT: mqtt:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? 0);
            amqpPort ||= Number(/AMQP: amqp:\/\/[^:]+:(\d+)/.exec(line)?.[1] ?? 0);
            const seeded = !opts.waitForSeed || line.includes('已写入演示数据');
            if (url && mqttPort && (amqpPort || !opts.amqp) && seeded) {
                clearTimeout(timer);
                resolve();
            }
        });
        child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${output}`)));
    });
    const login = await fetch(`${url}/sso/login`, {
        method: 'POST',
        body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
        redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
    const proc: ServerProcess = {
        child,
        url,
        mqttPort,
        amqpPort,
        cookie,
        async api(method, target, body, json) {
            const res = await fetch(`${url}${target}`, {
                method,
                headers: json ? { cookie, 'content-type': 'application/json' } : { cookie },
                body: !body
                    ? undefined
                    : json
                      ? JSON.stringify(body)
                      : new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])),
            });
            return (await res.json()) as { code: number; msg?: string; data: Record<string, unknown> };
        },
        async stop() {
            if (child.exitCode === null) child.kill('SIGTERM');
            await exited;
        },
        output: () => output,
    };
    return proc;
}
