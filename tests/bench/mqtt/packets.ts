/**
 * The few MQTT 3.1.1 packets the bench's bare-socket clients (clients.ts, publishers.ts) send, and a reader of the
 * packets they receive from a byte stream (a TCP chunk may end inside a packet or hold several).
 */

/** MQTT's variable-length "remaining length". */
function remainingLength(n: number): number[] {
    const bytes: number[] = [];
    do {
        let byte = n % 128;
        n = Math.floor(n / 128);
        if (n > 0) byte |= 0x80;
        bytes.push(byte);
    } while (n > 0);
    return bytes;
}

/** A length-prefixed UTF-8 string. */
function str(s: string): Buffer {
    const b = Buffer.from(s);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(b.length);
    return Buffer.concat([len, b]);
}

/** CONNECT: clean session, username and password. */
export function connectPacket(clientId: string, username: string, password: string, keepalive: number): Buffer {
    const variable = Buffer.from([0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 0xc2, keepalive >> 8, keepalive & 0xff]);
    const body = Buffer.concat([variable, str(clientId), str(username), str(password)]);
    return Buffer.concat([Buffer.from([0x10, ...remainingLength(body.length)]), body]);
}

/** SUBSCRIBE to one topic filter (packet id 1). */
export function subscribePacket(filter: string, qos: 0 | 1): Buffer {
    const body = Buffer.concat([Buffer.from([0, 1]), str(filter), Buffer.from([qos])]);
    return Buffer.concat([Buffer.from([0x82, ...remainingLength(body.length)]), body]);
}

/**
 * A QoS 1 PUBLISH writer for one topic: the topic is encoded once; each call lays out fixed header, topic, packet id
 * and the (ASCII) payload in one buffer.
 */
export function qos1Publisher(topic: string): (packetId: number, payload: string) => Buffer {
    const topicBytes = str(topic);
    return (packetId, payload) => {
        const body = topicBytes.length + 2 + payload.length;
        const header = [0x32, ...remainingLength(body)];
        const buf = Buffer.allocUnsafe(header.length + body);
        for (let i = 0; i < header.length; i++) buf[i] = header[i];
        let at = header.length;
        at += topicBytes.copy(buf, at);
        buf[at++] = packetId >> 8;
        buf[at++] = packetId & 0xff;
        buf.write(payload, at, 'latin1');
        return buf;
    };
}

/**
 * Reads packets from a socket's chunks: `onPacket(type, packet, bodyStart)` for each whole packet (type: the first
 * byte's high nibble; `packet` may be a view into the chunk, valid only during the call).
 */
export function packetReader(onPacket: (type: number, packet: Buffer, bodyStart: number) => void) {
    let rest: Buffer | undefined;
    return (chunk: Buffer) => {
        const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
        rest = undefined;
        let at = 0;
        while (at < buf.length) {
            // Fixed header: type byte, then 1-4 bytes of remaining length.
            let length = 0;
            let multiplier = 1;
            let i = at + 1;
            let complete = false;
            while (i < buf.length) {
                const byte = buf[i++];
                length += (byte & 0x7f) * multiplier;
                multiplier *= 128;
                if (!(byte & 0x80)) {
                    complete = true;
                    break;
                }
            }
            if (!complete || i + length > buf.length) break;
            onPacket(buf[at] >> 4, buf.subarray(at, i + length), i - at);
            at = i + length;
        }
        if (at < buf.length) rest = Buffer.from(buf.subarray(at));
    };
}
