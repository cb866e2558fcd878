import { createRequire } from 'node:module';
import mqttPacket, { type Packet } from 'mqtt-packet';

/**
 * Seeded protocol fuzzing: valid MQTT 3.1.1 / 5 packets (mqtt-packet's generate), AMQP 1.0 headers and frames (rhea's
 * own frame writer) and HTTP bodies, then mutated (bit flips, truncations, length fields, splices, repeats). The same
 * seed gives the same cases, so a failure names its seed and case number.
 */

/** mulberry32: a small seeded PRNG, [0, 1). */
export function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

export type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
export const int = (rng: Rng, max: number) => Math.floor(rng() * max);

function randomBytes(rng: Rng, n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = int(rng, 256);
    return b;
}

/** One mutation of `bytes` (never longer than `bytes` + 64 KB): what a broken or hostile peer sends. */
export function mutate(rng: Rng, bytes: Buffer, other?: Buffer): Buffer {
    if (!bytes.length) return randomBytes(rng, 1 + int(rng, 16));
    const at = int(rng, bytes.length);
    switch (int(rng, 8)) {
        case 0: {
            const out = Buffer.from(bytes);
            for (let i = 1 + int(rng, 3); i > 0; i--) out[int(rng, out.length)] ^= 1 << int(rng, 8);
            return out;
        }
        case 1:
            return bytes.subarray(0, at);
        case 2: {
            // A length or size field: a byte near the start set to an edge value.
            const out = Buffer.from(bytes);
            out[Math.min(int(rng, 6), out.length - 1)] = pick(rng, [0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe]);
            return out;
        }
        case 3:
            return Buffer.concat([bytes.subarray(0, at), other ?? randomBytes(rng, 1 + int(rng, 32))]);
        case 4:
            return Buffer.concat([bytes.subarray(0, at), randomBytes(rng, 1 + int(rng, 8)), bytes.subarray(at)]);
        case 5:
            return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1 + int(rng, 8))]);
        case 6:
            return Buffer.concat([bytes, bytes.subarray(at)]);
        default: {
            const out = Buffer.from(bytes);
            if (out.length >= 4) out.writeUInt32BE(pick(rng, [0, 7, 8, 0xffff, 0x10000, 0x414d5150, 0xffffffff]), 0);
            return out;
        }
    }
}

/** Splits `bytes` into 1-4 chunks at random points (a parser must follow frames across reads). */
export function split(rng: Rng, bytes: Buffer): Buffer[] {
    const cuts = Array.from({ length: int(rng, 4) }, () => int(rng, bytes.length + 1)).sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
        if (cut > from) chunks.push(bytes.subarray(from, cut));
        from = Math.max(from, cut);
    }
    return chunks;
}

// MQTT

export function mqttConnect(version: 4 | 5, creds?: { clientId: string; username: string; password: string }) {
    return mqttPacket.generate(
        {
            cmd: 'connect',
            protocolId: 'MQTT',
            protocolVersion: version,
            clean: true,
            keepalive: 60,
            clientId: creds?.clientId ?? 'fuzz',
            username: creds?.username ?? 'fuzz&user',
            password: Buffer.from(creds?.password ?? 'secret'),
            ...(version === 5 ? { properties: { sessionExpiryInterval: 10, maximumPacketSize: 65536 } } : {}),
        } as Packet,
        { protocolVersion: version },
    );
}

/** A valid packet a device may send after its CONNECT. */
export function mqttPacketAfterConnect(
    rng: Rng,
    version: 4 | 5,
    topic = 'fuzz/topic',
    subscribeTo = `${topic}/#`,
): Buffer {
    const messageId = 1 + int(rng, 65535);
    const packets: Packet[] = [
        {
            cmd: 'publish',
            topic,
            payload: randomBytes(rng, int(rng, 300)),
            qos: pick(rng, [0, 1] as const),
            retain: false,
            dup: false,
            messageId,
        } as Packet,
        { cmd: 'subscribe', messageId, subscriptions: [{ topic: subscribeTo, qos: 1 }] } as Packet,
        { cmd: 'unsubscribe', messageId, unsubscriptions: [topic] } as Packet,
        { cmd: 'pingreq' } as Packet,
        { cmd: 'puback', messageId } as Packet,
        { cmd: 'pubrec', messageId } as Packet,
        { cmd: 'pubrel', messageId } as Packet,
        { cmd: 'pubcomp', messageId } as Packet,
    ];
    return mqttPacket.generate(pick(rng, packets), { protocolVersion: version });
}

/** A stream a peer might send: a CONNECT (v4 or v5) and up to 5 packets, one of them (or the CONNECT) mutated. */
export function mqttStream(rng: Rng): { version: 4 | 5; bytes: Buffer } {
    const version = rng() < 0.7 ? 4 : 5;
    const packets = [mqttConnect(version)];
    for (let i = int(rng, 6); i > 0; i--) packets.push(mqttPacketAfterConnect(rng, version));
    const target = rng() < 0.2 ? 0 : int(rng, packets.length);
    packets[target] = mutate(rng, packets[target], pick(rng, packets));
    return { version, bytes: Buffer.concat(packets) };
}

// AMQP

interface RheaFrames {
    write_frame(frame: unknown): Buffer;
    sasl_frame(performative: unknown): unknown;
    amqp_frame(channel: number, performative: unknown, payload?: Buffer): unknown;
    sasl_init(fields: object): unknown;
    open(fields: object): unknown;
    begin(fields: object): unknown;
    attach(fields: object): unknown;
    flow(fields: object): unknown;
    close(fields: object): unknown;
}

/** rhea's own frame writer (the frames a real client sends). */
export const rheaFrames = createRequire(import.meta.url)('rhea/lib/frames.js') as RheaFrames;

export const SASL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]);
export const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0]);

export function saslInit(username: string, password: string): Buffer {
    const response = Buffer.from(`\0${username}\0${password}`);
    return rheaFrames.write_frame(
        rheaFrames.sasl_frame(rheaFrames.sasl_init({ mechanism: 'PLAIN', initial_response: response })),
    );
}

/** The AMQP frames a consumer sends after its sign-in: open, begin, attach (a receiver), flow, close. */
export function amqpFrames(rng: Rng): Buffer[] {
    const f = rheaFrames;
    const frames = [
        f.write_frame(f.amqp_frame(0, f.open({ container_id: `fuzz${int(rng, 1000)}`, max_frame_size: 65536 }))),
        f.write_frame(f.amqp_frame(0, f.begin({ next_outgoing_id: 0, incoming_window: 100, outgoing_window: 100 }))),
        f.write_frame(f.amqp_frame(0, f.attach({ name: 'r', handle: 0, role: true }))),
        f.write_frame(
            f.amqp_frame(
                0,
                f.flow({
                    next_incoming_id: 0,
                    incoming_window: 100,
                    next_outgoing_id: 0,
                    outgoing_window: 100,
                    handle: 0,
                    delivery_count: 0,
                    link_credit: 10,
                }),
            ),
        ),
        Buffer.from([0, 0, 0, 8, 2, 0, 0, 0]),
    ];
    if (rng() < 0.2) frames.push(f.write_frame(f.amqp_frame(0, f.close({}))));
    return frames;
}

/**
 * A stream a consumer might send: the SASL header and sasl-init, then (in `after`, sent once the outcome is in) the
 * AMQP header and frames; one part mutated.
 */
export function amqpStream(rng: Rng, creds = { username: 'fuzz', password: 'secret' }) {
    const sasl = [SASL_HEADER, saslInit(creds.username, creds.password)];
    const after = [AMQP_HEADER, ...amqpFrames(rng)];
    const all = [...sasl, ...after];
    const target = int(rng, all.length);
    const mutated = mutate(rng, all[target], pick(rng, all));
    if (target < sasl.length) sasl[target] = mutated;
    else after[target - sasl.length] = mutated;
    return { sasl: Buffer.concat(sasl), after: Buffer.concat(after) };
}

// HTTP

const HUGE = ['1e309', '-1e309', '99999999999999999999999', '1.7976931348623157e308', '-0', 'NaN', '9007199254740993'];
const ODD = [
    '\u0000',
    '\u0000abc',
    '\ud800',
    '%00',
    '\u202e',
    "'; drop table devices; --",
    '<script>',
    '../../etc/passwd',
];

function oddValue(rng: Rng): unknown {
    switch (int(rng, 6)) {
        case 0:
            return pick(rng, HUGE);
        case 1:
            return pick(rng, ODD);
        case 2:
            return Number(pick(rng, HUGE));
        case 3:
            return pick(rng, [null, true, [], {}, [1, [2]], { a: { b: 1 } }]);
        case 4:
            return 'x'.repeat(int(rng, 5000));
        default:
            return int(rng, 100);
    }
}

export interface HttpCase {
    method: 'GET' | 'POST' | 'PUT';
    path: string;
    headers: Record<string, string>;
    body: Buffer | string;
}

/** A body for `path` in one of JSON, form or multipart, with odd values, then maybe mutated as bytes. */
export function httpCase(rng: Rng, path: string, fields: string[]): HttpCase {
    const values: Record<string, unknown> = {};
    for (const name of fields.length ? fields : ['id', 'name']) if (rng() < 0.8) values[name] = oddValue(rng);
    if (rng() < 0.2) values[pick(rng, ODD)] = oddValue(rng);
    const kind = int(rng, 3);
    let body: Buffer | string;
    let type: string;
    if (kind === 0) {
        body = JSON.stringify(values);
        type = 'application/json';
    } else if (kind === 1) {
        body = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)])).toString();
        type = 'application/x-www-form-urlencoded';
    } else {
        const boundary = `fuzz${int(rng, 1e9)}`;
        body = Object.entries(values)
            .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`)
            .join('')
            .concat(`--${boundary}--\r\n`);
        type = `multipart/form-data; boundary=${boundary}`;
    }
    if (rng() < 0.5) body = mutate(rng, Buffer.from(body));
    return { method: 'POST', path, headers: { 'content-type': type }, body };
}
