import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** A Mosquitto of the bench's own on a free port (anonymous, no persistence): its RSS is the bench's devices' only. */
export async function startMosquitto(port: number) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-conn-mosquitto-'));
    const conf = path.join(dir, 'mosquitto.conf');
    writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
    const child = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((resolve) => {
            const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
            s.once('error', () => resolve(false));
        });
        if (up) break;
        await new Promise((r) => setTimeout(r, 50));
    }
    return {
        pid: child.pid!,
        rss() {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
        },
        async stop() {
            child.kill('SIGKILL');
            if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

export const hasMosquitto = () => existsSync(MOSQUITTO);
