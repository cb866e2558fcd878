/**
 * The forwarding bench's devices, a process of its own (the platform's process and the bench's destinations are
 * measured without them): bare MQTT 3.1.1 sockets (../mqtt/packets.ts) signing in as the demo lamps, posting QoS 1
 * property posts whose TotalEnergy is a sequence number unique in this process, so that a row at a destination names
 * the post it came from.
 *
 * Says `{ ready }`, then answers one JSON command per stdin line with one JSON line:
 * - `{ cmd: 'connect', port, devices: [[productKey, deviceName, secret]] }` → `{ connected, failed }`
 * - `{ cmd: 'flood', seconds }`: every device posts and waits for its PUBACK before the next, for `seconds`.
 *   → `{ acked, ms }`
 * - `{ cmd: 'paced', seconds, rate }`: `rate` posts per second spread over the devices. → `{ acked, first, acks }`:
 *   `acks` is [seq, PUBACK time (epoch ms, µs precision)] of every acknowledged post, `first` the first seq, `rtt`
 *   each post's write → PUBACK (ms, sorted).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import { connectPacket, packetReader, qos1Publisher } from '../mqtt/packets';

const CONCURRENCY = 100;
const PUBACK = 4;

interface Device {
    socket: Socket;
    publish: (packetId: number, payload: string) => Buffer;
    packetId: number;
    /** Packet id awaiting PUBACK → the post's seq and when it was written (performance.now()). */
    pending: Map<number, { seq: number; sentAt: number }>;
}

const devices: Device[] = [];
let seq = 0;
/** What a PUBACK means now: set by the running command. */
let onAck: (device: Device, seq: number, sentAt: number) => void = () => undefined;

/** Epoch ms with the monotonic clock's precision: comparable with PostgreSQL's clock_timestamp() on this machine. */
const epochMs = () => performance.timeOrigin + performance.now();

/** A lamp's property post carrying `n` as TotalEnergy (the thing model allows 0..99,999,999). */
const post = (n: number) =>
    `{"id":"${n}","version":"1.0","params":{"Brightness":${n % 101},"ActivePower":${(n % 20000) / 10},` +
    `"LightSwitch":${n % 2},"TotalEnergy":${n}},"method":"thing.event.property.post"}`;

function send(device: Device) {
    device.packetId = device.packetId === 65535 ? 1 : device.packetId + 1;
    const n = ++seq;
    device.pending.set(device.packetId, { seq: n, sentAt: performance.now() });
    device.socket.write(device.publish(device.packetId, post(n)));
}

function open(port: number, credentials: { clientId: string; username: string; password: string }, device: Device) {
    return new Promise<Socket | undefined>((resolve) => {
        const packet = connectPacket(credentials.clientId, credentials.username, credentials.password, 60);
        const socket = netConnect({ port, host: '127.0.0.1', noDelay: true }, () => socket.write(packet));
        let connected = false;
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (!connected) {
                    connected = type === 2 && p[body + 1] === 0;
                    return connected ? resolve(socket) : socket.destroy();
                }
                if (type !== PUBACK) return;
                const id = (p[body] << 8) | p[body + 1];
                const sent = device.pending.get(id);
                if (sent === undefined) return;
                device.pending.delete(id);
                onAck(device, sent.seq, sent.sentAt);
            }),
        );
        socket.once('error', () => undefined);
        socket.once('close', () => resolve(undefined));
    });
}

async function connectAll(port: number, list: Array<[string, string, string]>) {
    let next = 0;
    let failed = 0;
    const worker = async () => {
        while (next < list.length) {
            const [productKey, deviceName, secret] = list[next++];
            const topic = `/sys/${productKey}/${deviceName}/thing/event/property/post`;
            const device = { publish: qos1Publisher(topic), packetId: 0, pending: new Map() } as Omit<
                Device,
                'socket'
            > as Device;
            const socket = await open(port, alibabaCredentials({ productKey, deviceName, secret }), device);
            if (socket) devices.push(Object.assign(device, { socket }));
            else failed++;
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { connected: devices.length, failed };
}

function flood(seconds: number) {
    return new Promise<{ acked: number; ms: number }>((resolve) => {
        const t0 = performance.now();
        const until = t0 + seconds * 1000;
        let acked = 0;
        let busy = devices.length;
        onAck = (device) => {
            acked++;
            if (performance.now() < until) return send(device);
            if (--busy === 0) {
                onAck = () => undefined;
                resolve({ acked, ms: performance.now() - t0 });
            }
        };
        for (const d of devices) send(d);
    });
}

function paced(seconds: number, rate: number) {
    return new Promise<{ acked: number; first: number; acks: Array<[number, number]>; rtt: number[] }>((resolve) => {
        const total = Math.round(rate * seconds);
        const interval = 1000 / rate;
        const acks: Array<[number, number]> = [];
        const rtt: number[] = [];
        const first = seq + 1;
        const start = performance.now();
        let n = 0;
        onAck = (_device, s, sentAt) => {
            acks.push([s, Math.round(epochMs() * 1000) / 1000]);
            rtt.push(performance.now() - sentAt);
            if (acks.length === total) {
                onAck = () => undefined;
                resolve({ acked: acks.length, first, acks, rtt: rtt.sort((a, b) => a - b) });
            }
        };
        const tick = () => {
            // Every post due by now (a late timer sends the ones it missed at once).
            while (n < total && start + n * interval <= performance.now()) send(devices[n++ % devices.length]);
            if (n < total) setTimeout(tick, Math.max(0, start + n * interval - performance.now()));
        };
        tick();
    });
}

type Command =
    | { cmd: 'connect'; port: number; devices: Array<[string, string, string]> }
    | { cmd: 'flood'; seconds: number }
    | { cmd: 'paced'; seconds: number; rate: number };

const answer = (value: unknown) => void process.stdout.write(JSON.stringify(value) + '\n');

answer({ ready: true });
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const command = JSON.parse(line) as Command;
    queue = queue.then(async () => {
        if (command.cmd === 'connect') answer(await connectAll(command.port, command.devices));
        else if (command.cmd === 'flood') answer(await flood(command.seconds));
        else answer(await paced(command.seconds, command.rate));
    });
});
