/**
 * A bench client process: connects the devices it is given (JSON on stdin: { port, devices, from, to, alibaba,
 * keepalive, localAddresses }) and holds them idle; says `{ ready }` first, then prints `{ connected, failed, ms, cpu, rss }` once all are in, then
 * answers `count` with how many are still open and waits for `quit`. Several such processes share the load (one
 * process may hold only as many sockets as its open-files limit).
 *
 * Each device is a bare MQTT 3.1.1 client on a socket of its own: CONNECT, wait for CONNACK, then a PINGREQ every
 * keep-alive period, everything it receives read and dropped. An idle device needs no more, and a full client library
 * (mqtt.js: ~1 ms of CPU and several KB per connection) would make the client processes the bench's bottleneck.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import { connectPacket } from './packets';

interface Job {
    port: number;
    devices: Array<[string, string, string]>;
    from: number;
    to: number;
    alibaba: boolean;
    keepalive: number;
    localAddresses: string[];
}

const CONCURRENCY = 200;
const PINGREQ = Buffer.from([0xc0, 0x00]);

/** Connects; resolves with the socket once CONNACK accepts (return code 0), else with undefined. */
function device(job: Job, packet: Buffer, localAddress: string): Promise<Socket | undefined> {
    return new Promise((resolve) => {
        const socket = netConnect({ port: job.port, host: '127.0.0.1', localAddress }, () => socket.write(packet));
        let head = Buffer.alloc(0);
        const timer = setTimeout(() => socket.destroy(), 60_000);
        const onData = (chunk: Buffer) => {
            head = Buffer.concat([head, chunk]);
            if (head.length < 4) return;
            clearTimeout(timer);
            socket.off('data', onData);
            // Everything after CONNACK (PINGRESP) is read and dropped.
            socket.on('data', () => undefined);
            if (head[0] === 0x20 && head[3] === 0) return resolve(socket);
            socket.destroy();
            resolve(undefined);
        };
        socket.on('data', onData);
        socket.once('error', () => undefined);
        socket.once('close', () => (clearTimeout(timer), resolve(undefined)));
    });
}

const sockets: Socket[] = [];
let tick = 0;

async function run(job: Job) {
    const started = performance.now();
    let next = job.from;
    let failed = 0;
    // Keep-alive from the first connect on (a slow connect phase must not let the first devices time out): each
    // second a 1/keepalive share of the devices sends PINGREQ, so each pings once per period.
    setInterval(() => {
        tick++;
        for (let i = tick % job.keepalive; i < sockets.length; i += job.keepalive) {
            if (!sockets[i].destroyed) sockets[i].write(PINGREQ);
        }
    }, 1000).unref();
    const worker = async () => {
        while (next < job.to) {
            const i = next++;
            const [productKey, deviceName, secret] = job.devices[i];
            const creds = job.alibaba
                ? alibabaCredentials({ productKey, deviceName, secret })
                : // unique over all client processes: a broker closes the older session of a clientId
                  { clientId: deviceName, username: deviceName, password: 'x' };
            const packet = connectPacket(creds.clientId, creds.username, creds.password, job.keepalive);
            const socket = await device(job, packet, job.localAddresses[i % job.localAddresses.length]);
            if (socket) sockets.push(socket);
            else failed++;
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    process.stdout.write(
        JSON.stringify({
            // Still open now (a device the broker dropped after its CONNACK does not count).
            connected: sockets.filter((s) => !s.destroyed).length,
            failed,
            ms: performance.now() - started,
            cpu: (({ user, system }) => user + system)(process.cpuUsage()),
            rss: process.memoryUsage().rss,
        }) + '\n',
    );
}

process.stdout.write('{"ready":true}\n');
createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'quit') {
        for (const s of sockets) s.destroy();
        process.exit(0);
    }
    if (line.trim() === 'count') {
        process.stdout.write(JSON.stringify({ open: sockets.filter((s) => !s.destroyed).length }) + '\n');
    }
    if (line.startsWith('{')) void run(JSON.parse(line) as Job);
});
