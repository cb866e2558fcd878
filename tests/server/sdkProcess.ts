import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * The parent side of tests/server/sdkDeviceMain.mjs: a device process running Alibaba's Node SDK, each call a promise of
 * what the SDK answered, each listener's deliveries kept in order to wait on.
 */

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sdkDeviceMain.mjs');

export interface SdkEvent {
    event: string;
    on: string;
    data: unknown;
}

export interface SdkProcess {
    /** Signs a device or gateway in (`config` as iot.device / iot.gateway take it) under `handle`. */
    connect(handle: string, kind: 'device' | 'gateway', config: Record<string, unknown>): Promise<unknown>;
    /** Calls the SDK's `name` on `handle` and answers what its callback got. */
    call(handle: string, name: string, ...args: unknown[]): Promise<unknown>;
    /** Registers onProps, onConfig, onShadow, onService (answered with `reply`) or message on `handle`. */
    on(
        handle: string,
        name: string,
        options?: { service?: string; reply?: unknown; type?: 'sync' | 'async' },
    ): Promise<unknown>;
    /** The next delivery of `event` to `handle` not yet taken (and that `match` takes, when given). */
    next(handle: string, event: string, timeoutMs?: number, match?: (data: unknown) => boolean): Promise<unknown>;
    /** The QoS granted to each topic the SDK subscribes to when it connects (128 is a refusal). */
    granted(handle: string): Promise<Array<{ topic: string; qos: number }>>;
    /** iot.register (一型一密) with `config`. */
    register(config: Record<string, unknown>): Promise<unknown>;
    /** What the process wrote to stderr. */
    stderr: string[];
    close(): void;
}

export function startSdkProcess(env: Record<string, string> = {}): SdkProcess {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script], {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr.on('data', (d) => stderr.push(String(d)));
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
    const events: SdkEvent[] = [];
    const waiting: Array<() => void> = [];
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
        const m = JSON.parse(line) as { id?: number; ok?: unknown; error?: string } & Partial<SdkEvent>;
        if (m.event) {
            events.push(m as SdkEvent);
            for (const w of waiting.splice(0)) w();
            return;
        }
        const p = pending.get(m.id!);
        pending.delete(m.id!);
        if (m.error !== undefined) p?.reject(new Error(m.error));
        else p?.resolve(m.ok);
    });
    let nextId = 1;
    const request = (op: string, body: Record<string, unknown>, timeoutMs = 10_000) =>
        new Promise<unknown>((resolve, reject) => {
            const id = nextId++;
            const timer = setTimeout(() => {
                pending.delete(id);
                reject(
                    new Error(`the SDK process did not answer ${op} ${JSON.stringify(body)} within ${timeoutMs} ms`),
                );
            }, timeoutMs);
            pending.set(id, {
                resolve: (v) => (clearTimeout(timer), resolve(v)),
                reject: (e) => (clearTimeout(timer), reject(e)),
            });
            child.stdin.write(`${JSON.stringify({ id, op, ...body })}\n`);
        });
    const next = async (handle: string, event: string, timeoutMs = 10_000, match = (_: unknown) => true) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const i = events.findIndex((e) => e.on === handle && e.event === event && match(e.data));
            if (i >= 0) return events.splice(i, 1)[0].data;
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no ${event} reached ${handle} within ${timeoutMs} ms`);
            await new Promise<void>((r) => {
                const t = setTimeout(r, left);
                waiting.push(() => (clearTimeout(t), r()));
            });
        }
    };
    return {
        connect: (handle, kind, config) => request('connect', { handle, kind, config }),
        call: (handle, name, ...args) => request('call', { handle, name, args }),
        on: (handle, name, options = {}) => request('on', { handle, name, ...options }),
        next,
        granted: async (handle) => (await request('granted', { handle })) as Array<{ topic: string; qos: number }>,
        register: (config) => request('register', { config }),
        stderr,
        close: () => child.kill(),
    };
}
