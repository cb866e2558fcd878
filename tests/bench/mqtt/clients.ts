/**
 * A bench client process: connects the devices it is given (JSON on stdin: { port, devices, from, to, alibaba,
 * keepalive, localAddresses }) and holds them; prints `{ connected, ms }` once all are in, then waits for `quit`.
 * Several such processes share the load (one process may hold only as many sockets as its open-files limit).
 */
import { connect as netConnect } from 'node:net';
import { createInterface } from 'node:readline';
import { MqttClient } from 'mqtt';
import { alibabaCredentials } from '../../../server/mqtt/signIn';

interface Job {
    port: number;
    devices: Array<[string, string, string]>;
    from: number;
    to: number;
    alibaba: boolean;
    keepalive: number;
    localAddresses: string[];
}

const lines = createInterface({ input: process.stdin });
const clients: MqttClient[] = [];
lines.on('line', (line) => {
    if (line.trim() === 'quit') {
        for (const c of clients) c.end(true);
        process.exit(0);
    }
    if (!line.startsWith('{')) return;
    void run(JSON.parse(line) as Job);
});

async function run(job: Job) {
    const started = performance.now();
    const CONCURRENCY = 200;
    let next = job.from;
    let failed = 0;
    const worker = async () => {
        while (next < job.to) {
            const i = next++;
            const [productKey, deviceName, secret] = job.devices[i];
            const creds = job.alibaba
                ? alibabaCredentials({ productKey, deviceName, secret })
                : { clientId: `c${i}`, username: deviceName, password: 'x' };
            const localAddress = job.localAddresses[i % job.localAddresses.length];
            const ok = await new Promise<boolean>((resolve) => {
                const client = new MqttClient(() => netConnect({ port: job.port, host: '127.0.0.1', localAddress }), {
                    ...creds,
                    keepalive: job.keepalive,
                    reconnectPeriod: 0,
                    connectTimeout: 30_000,
                    protocolVersion: 4,
                });
                client.once('connect', () => resolve(true));
                client.once('error', () => resolve(false));
                client.once('close', () => resolve(false));
                clients.push(client);
            });
            if (!ok) failed++;
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    process.stdout.write(
        JSON.stringify({
            connected: job.to - job.from - failed,
            failed,
            ms: performance.now() - started,
            cpu: (({ user, system }) => user + system)(process.cpuUsage()),
        }) + '\n',
    );
}
