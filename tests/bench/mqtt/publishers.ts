/**
 * The ingest bench's load generator, a process of its own (so that the devices' client work is not counted against
 * the broker's process, and can be measured apart): bare MQTT 3.1.1 sockets, as devices would be, not a client library
 * (mqtt.js cost the bench process ~30 µs of CPU per publish + PUBACK, on the cores the broker is measured on).
 *
 * Says `{ ready }` first, then answers one JSON command per stdin line with one JSON line:
 * - `{ cmd: 'connect', port, devices: [[productKey, deviceName, secret]], topics, alibaba }`: connects the devices
 *   (Alibaba's signed credentials, or clientId = username = deviceName); device i publishes on topics[i].
 *   → `{ connected, failed }`
 * - `{ cmd: 'flood', seconds }`: every device publishes QoS 1 property posts, each waiting for its PUBACK before the
 *   next, for `seconds`. → `{ acked, ms, cpu }` (cpu: µs of this process's CPU over the run)
 * - `{ cmd: 'paced', seconds, rate }`: `rate` msg/s spread over the devices (message n to device n mod count), each
 *   timed from its write to its PUBACK. → `{ acked, cpu, times }` (ms, sorted)
 * - `{ cmd: 'subscribe', port, filter }`: one more connection subscribes to `filter` at QoS 0 and counts the PUBLISH
 *   packets it receives. → `{ subscribed }`; then `{ cmd: 'count' }` → `{ received, cpu }`.
 * - `quit`.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { createInterface } from 'node:readline';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import { connectPacket, packetReader, qos1Publisher, subscribePacket } from './packets';

const CONCURRENCY = 200;
const KEEPALIVE = 60;
const PUBACK = 4;

/** The property post `post(n)` of the bench (as JSON.stringify writes it), values varying with n. */
const post = (n: number) =>
    `{"id":"${n}","version":"1.0","params":{"Brightness":${n % 101},"ActivePower":${(n % 2000) / 10},` +
    `"LightSwitch":${n % 2}},"method":"thing.event.property.post"}`;

interface Device {
    socket: Socket;
    publish: (packetId: number, payload: string) => Buffer;
    /** The last packet id used (1..65535, then 1 again). */
    packetId: number;
    /** The device's own message counter (post(n)). */
    n: number;
    /** Packet ids awaiting PUBACK → when they were written. */
    pending: Map<number, number>;
}

const devices: Device[] = [];
/** What a PUBACK means now: set by the running command. */
let onAck: (device: Device, sentAt: number) => void = () => undefined;
let subscriberReceived = 0;

const cpuMicros = () => (({ user, system }) => user + system)(process.cpuUsage());

/** Connects one socket; resolves once CONNACK accepts (return code 0), with the packets after it going to `then`. */
function open(port: number, packet: Buffer, then: (type: number, p: Buffer, body: number) => void, ca?: string) {
    return new Promise<Socket | undefined>((resolve) => {
        // With `ca`: over TLS (MQTTS), trusting that CA, the certificate's name being localhost.
        const socket: Socket = ca
            ? tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', ca }, () => socket.write(packet))
            : netConnect({ port, host: '127.0.0.1', noDelay: true }, () => socket.write(packet));
        let connected = false;
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (connected) return then(type, p, body);
                connected = type === 2 && p[body + 1] === 0;
                if (connected) resolve(socket);
                else socket.destroy();
            }),
        );
        socket.once('error', () => undefined);
        socket.once('close', () => resolve(undefined));
    });
}

function send(device: Device, now: number) {
    device.packetId = device.packetId === 65535 ? 1 : device.packetId + 1;
    device.pending.set(device.packetId, now);
    device.socket.write(device.publish(device.packetId, post(device.n++)));
}

async function connectAll(job: {
    port: number;
    devices: Array<[string, string, string]>;
    topics: string[];
    alibaba: boolean;
    /** Over TLS trusting this CA (PEM); Alibaba sign-ins then say securemode=2. */
    ca?: string;
}) {
    let next = 0;
    let failed = 0;
    const worker = async () => {
        while (next < job.devices.length) {
            const i = next++;
            const [productKey, deviceName, secret] = job.devices[i];
            const creds = job.alibaba
                ? alibabaCredentials({ productKey, deviceName, secret }, { securemode: job.ca ? 2 : 3 })
                : { clientId: deviceName, username: deviceName, password: 'x' };
            const device = {
                publish: qos1Publisher(job.topics[i]),
                packetId: 0,
                n: 0,
                pending: new Map(),
            } as Omit<Device, 'socket'> as Device;
            const socket = await open(
                job.port,
                connectPacket(creds.clientId, creds.username, creds.password, KEEPALIVE),
                (type, p, body) => {
                    if (type !== PUBACK) return; // anything else (a reply it did not subscribe to) is dropped
                    const id = (p[body] << 8) | p[body + 1];
                    const sentAt = device.pending.get(id);
                    if (sentAt === undefined) return;
                    device.pending.delete(id);
                    onAck(device, sentAt);
                },
                job.ca,
            );
            if (socket) devices.push(Object.assign(device, { socket }));
            else failed++;
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { connected: devices.length, failed };
}

function flood(seconds: number) {
    return new Promise<{ acked: number; ms: number; cpu: number }>((resolve) => {
        const cpu0 = cpuMicros();
        const t0 = performance.now();
        const until = t0 + seconds * 1000;
        let acked = 0;
        let busy = devices.length;
        onAck = (device) => {
            acked++;
            const now = performance.now();
            if (now < until) return send(device, now);
            if (--busy === 0) {
                onAck = () => undefined;
                resolve({ acked, ms: performance.now() - t0, cpu: cpuMicros() - cpu0 });
            }
        };
        for (const d of devices) send(d, t0);
    });
}

function paced(seconds: number, rate: number) {
    return new Promise<{ acked: number; cpu: number; times: number[] }>((resolve) => {
        const cpu0 = cpuMicros();
        const total = Math.round(rate * seconds);
        const interval = 1000 / rate;
        const times: number[] = [];
        const start = performance.now();
        let n = 0;
        onAck = (_device, sentAt) => {
            times.push(performance.now() - sentAt);
            if (times.length === total) {
                onAck = () => undefined;
                resolve({ acked: times.length, cpu: cpuMicros() - cpu0, times: times.sort((a, b) => a - b) });
            }
        };
        const tick = () => {
            const now = performance.now();
            // Every message due by now (a late timer sends the ones it missed at once, as the old loop did).
            while (n < total && start + n * interval <= now) {
                send(devices[n % devices.length], performance.now());
                n++;
            }
            if (n < total) setTimeout(tick, Math.max(0, start + n * interval - performance.now()));
        };
        tick();
    });
}

async function subscribe(port: number, filter: string) {
    let subacked: () => void = () => undefined;
    const suback = new Promise<void>((resolve) => (subacked = resolve));
    const socket = await open(port, connectPacket(`benchsub${process.pid}`, 'benchsub', 'x', KEEPALIVE), (type) => {
        if (type === 3) subscriberReceived++;
        else if (type === 9) subacked();
    });
    if (!socket) throw new Error('subscriber refused');
    socket.write(subscribePacket(filter, 0));
    await suback;
    return { subscribed: true };
}

type Command =
    | ({ cmd: 'connect' } & Parameters<typeof connectAll>[0])
    | { cmd: 'flood'; seconds: number }
    | { cmd: 'paced'; seconds: number; rate: number }
    | { cmd: 'subscribe'; port: number; filter: string }
    | { cmd: 'count' };

const answer = (value: unknown) => void process.stdout.write(JSON.stringify(value) + '\n');

process.stdout.write('{"ready":true}\n');
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'quit') {
        for (const d of devices) d.socket.destroy();
        process.exit(0);
    }
    if (!line.startsWith('{')) return;
    const command = JSON.parse(line) as Command;
    queue = queue.then(async () => {
        switch (command.cmd) {
            case 'connect':
                return answer(await connectAll(command));
            case 'flood':
                return answer(await flood(command.seconds));
            case 'paced':
                return answer(await paced(command.seconds, command.rate));
            case 'subscribe':
                return answer(await subscribe(command.port, command.filter));
            case 'count':
                return answer({ received: subscriberReceived, cpu: cpuMicros() });
        }
    });
});
