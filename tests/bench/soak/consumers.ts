/**
 * The soak's receiving side, a process of its own: one AMQP consumer per consumer group of the platform (rhea, as
 * Alibaba's AMQP samples connect, reconnecting), or for the Mosquitto anchor as many bare-socket MQTT subscribers of
 * the fleet's posts at QoS 1. Each receiver keeps which posts it got (schedule.ts `ackIndex`) and how long after
 * being sent each arrived.
 *
 * Answers one JSON line per stdin line `name json`:
 * - `amqp { ports, groups, accessKey, accessSecret, schedule }`: consumer i of group groups[i] on ports[i % n].
 * - `mqtt { port, count, filter, schedule }`: `count` subscribers of `filter`. Both → `{ receivers }`
 * - `minute` → `{ received: [per receiver], lag }` since the last ask (lag: compressed HdrHistogram of ms).
 * - `missing { slices: [{ file, from, count }] }`: the fleet's acknowledgement bytes (fleet.ts `stop`); waits up to
 *   60 s for every acknowledged post to have reached every receiver. → `{ missing: [per receiver], duplicates, waitedMs }`
 */
import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import * as hdr from 'hdr-histogram-js';
import rhea from 'rhea';
import { amqpCredentials } from '../../../server/amqp/signIn';
import { connectPacket, packetReader, subscribePacket } from '../mqtt/packets';
import { serveCommands } from './commandLoop';
import { ackIndex, parseId, type Schedule } from './schedule';

interface Receiver {
    got: Uint8Array;
    received: number;
    duplicates: number;
}

const receivers: Receiver[] = [];
let schedule: Schedule;
const histogram = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000 });
let lag = histogram();

function receiver(): Receiver {
    const r = { got: new Uint8Array(schedule.maxSeq * schedule.devices), received: 0, duplicates: 0 };
    receivers.push(r);
    return r;
}

function take(r: Receiver, text: string) {
    const id = parseId(text);
    if (!id) return;
    const at = ackIndex(schedule, id[0], id[1]);
    if (r.got[at]) r.duplicates++;
    r.got[at] = 1;
    r.received++;
    lag.recordValue(Math.max(1, Date.now() - id[2]));
}

function amqp(job: { ports: number[]; groups: number[]; accessKey: string; accessSecret: string; schedule: Schedule }) {
    schedule = job.schedule;
    const opened = job.groups.map(
        (groupId, i) =>
            new Promise<void>((resolve) => {
                const r = receiver();
                const creds = amqpCredentials({ clientId: `soak-${i}`, consumerGroupId: groupId, ...job });
                const connection = rhea.create_container().connect({
                    host: '127.0.0.1',
                    port: job.ports[i % job.ports.length],
                    username: creds.username,
                    password: creds.password,
                    reconnect: true,
                    initial_reconnect_delay: 200,
                    max_reconnect_delay: 1_000,
                });
                const link = connection.open_receiver({ source: { address: 'default' }, credit_window: 1_000 });
                link.on('message', (c) => {
                    const body = c.message?.body as { content?: Buffer } | Buffer | string;
                    take(
                        r,
                        Buffer.isBuffer(body)
                            ? body.toString()
                            : typeof body === 'string'
                              ? body
                              : String(body?.content),
                    );
                });
                link.once('receiver_open', () => resolve());
            }),
    );
    return Promise.all(opened).then(() => ({ receivers: receivers.length }));
}

function mqtt(job: { port: number; count: number; filter: string; schedule: Schedule }) {
    schedule = job.schedule;
    const subscribed = Array.from(
        { length: job.count },
        (_, i) =>
            new Promise<void>((resolve) => {
                const r = receiver();
                const socket = netConnect({ port: job.port, host: '127.0.0.1', noDelay: true }, () =>
                    socket.write(connectPacket(`soak-sub-${i}`, 'soak', 'x', 300)),
                );
                socket.on(
                    'data',
                    packetReader((type, p, body) => {
                        if (type === 2) socket.write(subscribePacket(job.filter, 1));
                        else if (type === 9) resolve();
                        else if (type === 3) {
                            // PUBLISH at QoS 1: topic, packet id, payload; answered with PUBACK.
                            const topicLength = p.readUInt16BE(body);
                            const idAt = body + 2 + topicLength;
                            socket.write(Buffer.from([0x40, 2, p[idAt], p[idAt + 1]]));
                            take(r, p.toString('latin1', idAt + 2));
                        }
                    }),
                );
            }),
    );
    return Promise.all(subscribed).then(() => ({ receivers: receivers.length }));
}

function minute() {
    const answer = { received: receivers.map((r) => r.received), lag: hdr.encodeIntoCompressedBase64(lag) };
    for (const r of receivers) r.received = 0;
    lag = histogram();
    return answer;
}

/** Acknowledged posts a receiver has not got, per receiver. */
function missingNow(acked: Array<{ bytes: Uint8Array; from: number }>) {
    return receivers.map((r) => {
        let n = 0;
        for (const { bytes, from } of acked) {
            const offset = ackIndex(schedule, from, 1);
            for (let k = 0; k < bytes.length; k++) if (bytes[k] && !r.got[offset + k]) n++;
        }
        return n;
    });
}

async function missing(job: { slices: Array<{ file: string; from: number }> }) {
    const acked = job.slices.map((s) => ({ bytes: new Uint8Array(readFileSync(s.file)), from: s.from }));
    const t0 = performance.now();
    let left = missingNow(acked);
    while (left.some((n) => n > 0) && performance.now() - t0 < 60_000) {
        await new Promise((r) => setTimeout(r, 500));
        left = missingNow(acked);
    }
    return {
        missing: left,
        duplicates: receivers.map((r) => r.duplicates),
        waitedMs: Math.round(performance.now() - t0),
    };
}

const commands: Record<string, (arg: never) => unknown> = { amqp, mqtt, minute, missing };

serveCommands(commands);
