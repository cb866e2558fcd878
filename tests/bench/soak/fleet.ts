/**
 * The soak's load generator, a process of its own (a slice of the fleet: a process holds at most the machine's open
 * file limit of sockets): bare MQTT 3.1.1 sockets signed in with Alibaba's scheme (as mqtt/publishers.ts, whose
 * packets it shares), spread over several loopback source addresses so that the ephemeral ports do not run out, each
 * device posting its properties at QoS 1 on the fleet's schedule (schedule.ts).
 *
 * Answers one JSON line per stdin line `name json`:
 * - `connect { devices: [[productKey, deviceName, secret]], from, ports, sources, alibaba }`: the devices of global
 *   index from.. connect, device i to ports[i % ports.length] from 127.0.0.(2 + i % sources). → `{ connected, failed, ms }`
 * - `start { schedule }`: posting starts on the shared schedule. → `{ started }`
 * - `minute`: what happened since the last ask. → `{ sent, acked, puback, late }` (puback, late: compressed
 *   HdrHistograms of µs: PUBACK latency, and how late against the schedule each post went out)
 * - `stop { ackedFile }`: posting stops; waits up to 30 s for the PUBACKs still due, then writes which posts were
 *   acknowledged (one byte per device and sequence, schedule.ts `ackIndex`). → `{ sent, acked, unanswered, highs }`
 *   (highs: [device, seq, sentMs, acknowledged] of the posts that make rules fire)
 */
import { writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import * as hdr from 'hdr-histogram-js';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import { connectPacket, packetReader, qos1Publisher } from '../mqtt/packets';
import { serveCommands } from './commandLoop';
import { isHigh, payload, slotAt, slotDevice, slotSeq, slotTime, type Schedule } from './schedule';

const CONCURRENCY = 200;
const KEEPALIVE = 300;
const PUBACK = 4;

interface Device {
    index: number;
    socket: Socket;
    publish: (packetId: number, payload: string) => Buffer;
    packetId: number;
    /** Packet id → [sent at (performance.now()), seq]. */
    pending: Map<number, [number, number]>;
}

const devices = new Map<number, Device>();
let from = 0;
/** How many devices this slice was given (connected or not): the acknowledgement bytes are laid out over them. */
let sliceSize = 0;
let schedule: Schedule | undefined;
let acked: Uint8Array = new Uint8Array(0);
let ticker: NodeJS.Timeout | undefined;
let nextSlot = 0;
const counts = { sent: 0, acked: 0, minuteSent: 0, minuteAcked: 0 };
const highs: Array<[number, number, number, number]> = [];
const histogram = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000 });
let puback = histogram();
let late = histogram();

function open(port: number, localAddress: string, packet: Buffer, onPacket: Parameters<typeof packetReader>[0]) {
    return new Promise<Socket | undefined>((resolve) => {
        const socket = netConnect({ port, host: '127.0.0.1', localAddress, noDelay: true }, () => socket.write(packet));
        let connected = false;
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (connected) return onPacket(type, p, body);
                connected = type === 2 && p[body + 1] === 0;
                if (connected) resolve(socket);
                else socket.destroy();
            }),
        );
        socket.once('error', () => undefined);
        socket.once('close', () => resolve(undefined));
    });
}

function onPuback(device: Device, p: Buffer, body: number) {
    const id = (p[body] << 8) | p[body + 1];
    const sent = device.pending.get(id);
    if (!sent) return;
    device.pending.delete(id);
    puback.recordValue(Math.max(1, Math.round((performance.now() - sent[0]) * 1000)));
    counts.acked++;
    counts.minuteAcked++;
    acked[schedule!.maxSeq * (device.index - from) + sent[1] - 1] = 1;
}

async function connectAll(job: {
    devices: Array<[string, string, string]>;
    from: number;
    ports: number[];
    sources: number;
    alibaba: boolean;
}) {
    const t0 = performance.now();
    from = job.from;
    sliceSize = job.devices.length;
    let next = 0;
    let failed = 0;
    const worker = async () => {
        while (next < job.devices.length) {
            const k = next++;
            const index = job.from + k;
            const [productKey, deviceName, secret] = job.devices[k];
            const creds = job.alibaba
                ? alibabaCredentials({ productKey, deviceName, secret }, { signMethod: 'hmacsha1' })
                : { clientId: deviceName, username: deviceName, password: 'x' };
            const topic = `/sys/${productKey}/${deviceName}/thing/event/property/post`;
            const device = { index, publish: qos1Publisher(topic), packetId: 0, pending: new Map() } as Omit<
                Device,
                'socket'
            > as Device;
            const socket = await open(
                job.ports[index % job.ports.length],
                `127.0.0.${2 + (index % job.sources)}`,
                connectPacket(creds.clientId, creds.username, creds.password, KEEPALIVE),
                (type, p, body) => type === PUBACK && onPuback(device, p, body),
            );
            if (socket) devices.set(index, Object.assign(device, { socket }));
            else failed++;
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { connected: devices.size, failed, ms: Math.round(performance.now() - t0) };
}

/** Sends every slot of this slice that is due: each device's post as the schedule places it. */
function tick() {
    const s = schedule!;
    const now = Date.now();
    const due = slotAt(s, now);
    for (; nextSlot <= due; nextSlot++) {
        const device = devices.get(slotDevice(s, nextSlot));
        if (!device) continue;
        const seq = slotSeq(s, nextSlot);
        if (seq > s.maxSeq) continue;
        device.packetId = device.packetId === 65535 ? 1 : device.packetId + 1;
        device.pending.set(device.packetId, [performance.now(), seq]);
        device.socket.write(device.publish(device.packetId, payload(s, nextSlot, now)));
        late.recordValue(Math.max(1, (now - slotTime(s, nextSlot)) * 1000));
        if (isHigh(s, nextSlot)) highs.push([device.index, seq, now, 0]);
        counts.sent++;
        counts.minuteSent++;
    }
}

function start(s: Schedule) {
    schedule = s;
    acked = new Uint8Array(s.maxSeq * sliceSize);
    nextSlot = Math.max(0, slotAt(s, Date.now()) + 1);
    ticker = setInterval(tick, 5);
    return { started: true };
}

function minute() {
    const answer = {
        sent: counts.minuteSent,
        acked: counts.minuteAcked,
        puback: hdr.encodeIntoCompressedBase64(puback),
        late: hdr.encodeIntoCompressedBase64(late),
    };
    counts.minuteSent = counts.minuteAcked = 0;
    puback = histogram();
    late = histogram();
    return answer;
}

async function stop(job: { ackedFile: string }) {
    clearInterval(ticker);
    const pending = () => [...devices.values()].reduce((n, d) => n + d.pending.size, 0);
    for (let waited = 0; waited < 30_000 && pending() > 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
    writeFileSync(job.ackedFile, acked);
    for (const h of highs) h[3] = acked[schedule!.maxSeq * (h[0] - from) + h[1] - 1];
    return { sent: counts.sent, acked: counts.acked, unanswered: pending(), highs };
}

const commands: Record<string, (arg: never) => unknown> = {
    connect: connectAll,
    start,
    minute,
    stop,
};

serveCommands(commands);
