import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import type { Figure } from '../run';
import { connectPacket, packetReader } from './packets';

/**
 * The TLS rows of `npm run bench -- mqtt` (MQTT_BENCH=tls): the platform's MQTTS beside its plain MQTT, and beside
 * Mosquitto with a TLS listener started here on the same certificate, under the same clients: connect rate with full
 * handshakes and with resumed sessions (TLS 1.3 tickets), and memory per idle connection. Ingest and p99 over TLS come
 * from mqtt.ts's generator connecting over TLS.
 */

export type Dev = [string, string, string];

/** One MQTT sign-in: TCP (or TLS) connect, CONNECT, CONNACK 0; resolves with the socket's session ticket, if any. */
function signIn(
    port: number,
    packet: Buffer,
    tls?: { ca: string; session?: Buffer },
): Promise<{ socket: Socket; session?: Buffer }> {
    return new Promise((resolve, reject) => {
        let session: Buffer | undefined;
        const socket: Socket = tls
            ? tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', ca: tls.ca, session: tls.session }, () =>
                  socket.write(packet),
              )
            : netConnect({ port, host: '127.0.0.1' }, () => socket.write(packet));
        if (tls) socket.on('session', (s: Buffer) => (session = s));
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (type === 2 && p[body + 1] === 0) {
                    // A TLS 1.3 ticket comes after the handshake; the CONNACK is later still.
                    setImmediate(() => resolve({ socket, session }));
                } else reject(new Error(`CONNACK ${p[body + 1]}`));
            }),
        );
        socket.once('error', reject);
    });
}

/** Sign-ins per second over `count` connections (20 at a time), each closed once accepted. */
export async function connectRate(
    port: number,
    packets: (i: number) => Buffer,
    count: number,
    tls?: { ca: string; resume: boolean },
): Promise<number> {
    let next = 0;
    let resumed = 0;
    const started = performance.now();
    const worker = async () => {
        let session: Buffer | undefined;
        while (next < count) {
            const i = next++;
            const r = await signIn(port, packets(i), tls && { ca: tls.ca, session: tls.resume ? session : undefined });
            if (tls && (r.socket as TLSSocket).isSessionReused()) resumed++;
            session = r.session ?? session;
            r.socket.destroy();
        }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    if (tls?.resume && resumed < count / 2) throw new Error(`only ${resumed} of ${count} TLS sessions were resumed`);
    return Math.round(count / ((performance.now() - started) / 1000));
}

/** RSS growth per connection while `count` signed-in connections sit idle. */
export async function memoryPerIdle(
    rss: () => Promise<number>,
    port: number,
    packets: (i: number) => Buffer,
    count: number,
    ca?: string,
): Promise<{ kb: number; close: () => void }> {
    const before = await rss();
    const sockets: Socket[] = [];
    for (let i = 0; i < count; i += 50) {
        const batch = await Promise.all(
            Array.from({ length: Math.min(50, count - i) }, (_, k) =>
                signIn(port, packets(i + k), ca ? { ca } : undefined),
            ),
        );
        sockets.push(...batch.map((b) => b.socket));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const after = await rss();
    return {
        kb: Math.round((after - before) / count / 102.4) / 10,
        close: () => sockets.forEach((s) => s.destroy()),
    };
}

/** Alibaba sign-ins of the platform's bench devices (securemode 2 over TLS), device i mod the list. */
export const platformPackets = (devices: Dev[], securemode: 2 | 3) => (i: number) => {
    const [productKey, deviceName, secret] = devices[i % devices.length];
    const c = alibabaCredentials({ productKey, deviceName, secret }, { securemode });
    return connectPacket(c.clientId, c.username, c.password, 60);
};

/** Anonymous sign-ins for Mosquitto, a client id of their own each. */
export const mosquittoPackets = (i: number) => connectPacket(`bench-tls-${i}`, 'bench', 'x', 60);

/** Mosquitto with a plain and a TLS listener, the TLS one on the platform's certificate. */
export async function startMosquittoTls(files: { caFile: string; certFile: string; keyFile: string }) {
    const { freePort } = await import('../../e2e/support');
    const [plain, tls] = [await freePort(), await freePort()];
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-mosquitto-tls-'));
    const conf = path.join(dir, 'mosquitto.conf');
    writeFileSync(
        conf,
        [
            // Run as root here, Mosquitto would drop to its own user, who cannot read the key (mode 0600).
            ...(process.getuid?.() === 0 ? ['user root'] : []),
            'per_listener_settings false',
            'allow_anonymous true',
            'persistence false',
            `listener ${plain} 127.0.0.1`,
            `listener ${tls} 127.0.0.1`,
            `cafile ${files.caFile}`,
            `certfile ${files.certFile}`,
            `keyfile ${files.keyFile}`,
            '',
        ].join('\n'),
    );
    const child = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
        const up = await signIn(plain, mosquittoPackets(-1))
            .then((r) => (r.socket.destroy(), true))
            .catch(() => false);
        if (up) break;
        await new Promise((r) => setTimeout(r, 50));
    }
    return {
        plain,
        tls,
        async rss() {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
        },
        stop: () => child.kill('SIGKILL'),
    };
}

export const figure = (name: string, value: number, unit: string): Figure => ({ name, value, unit });
