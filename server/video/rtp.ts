/**
 * RTP (RFC 3550) as gb28181 cameras send their MPEG-PS: the fixed 12-byte header, CSRCs, a header extension and
 * padding are taken off, and payloads come out in sequence order through a small jitter buffer. Written here
 * because no maintained Node library depacketises RTP (the npm ones are unmaintained or WebRTC-bound), and the
 * framing is a few lines.
 */

export interface RtpPacket {
    payloadType: number;
    sequence: number;
    timestamp: number;
    ssrc: number;
    marker: boolean;
    payload: Buffer;
}

/** The packet in `buf`, or undefined when it is not RTP version 2 or is cut short. */
export function parseRtp(buf: Buffer): RtpPacket | undefined {
    if (buf.length < 12 || buf[0] >> 6 !== 2) return undefined;
    const csrcCount = buf[0] & 0x0f;
    let offset = 12 + csrcCount * 4;
    if (buf[0] & 0x10) {
        if (buf.length < offset + 4) return undefined;
        offset += 4 + buf.readUInt16BE(offset + 2) * 4;
    }
    let end = buf.length;
    if (buf[0] & 0x20) end -= buf[buf.length - 1];
    if (end < offset) return undefined;
    return {
        payloadType: buf[1] & 0x7f,
        marker: (buf[1] & 0x80) !== 0,
        sequence: buf.readUInt16BE(2),
        timestamp: buf.readUInt32BE(4),
        ssrc: buf.readUInt32BE(8),
        payload: buf.subarray(offset, end),
    };
}

/** a - b in 16-bit sequence space (-32768 … 32767). */
const seqDiff = (a: number, b: number) => ((a - b + 0x18000) & 0xffff) - 0x8000;

export interface JitterOptions {
    /** Payloads in order. */
    onPayload: (payload: Buffer) => void;
    /** Packets held while one is missing; beyond this the gap is given up and playing goes on. Default 64. */
    depth?: number;
    /** Only this payload type passes (default 96, PS/90000 as offered). */
    payloadType?: number;
    /** Packets held before the first one plays, so that the stream starts at the lowest of them. Default 8. */
    startDepth?: number;
}

/**
 * Orders packets by sequence number. The first `startDepth` packets are held and play from the lowest (the first
 * packet, with the stream's headers, may arrive second). Then a late packet (already passed) is dropped; a missing
 * one is waited for until `depth` later packets are held, then skipped (ffmpeg resynchronises on the next PS pack).
 */
export function createJitterBuffer(opts: JitterOptions) {
    const depth = opts.depth ?? 64;
    const payloadType = opts.payloadType ?? 96;
    const held = new Map<number, Buffer>();
    const startDepth = opts.startDepth ?? 8;
    let next: number | undefined;
    let started = false;
    const stats = { received: 0, reordered: 0, lost: 0, late: 0 };

    function drain() {
        while (next !== undefined && held.has(next)) {
            const payload = held.get(next)!;
            held.delete(next);
            next = (next + 1) & 0xffff;
            opts.onPayload(payload);
        }
    }

    return {
        push(buf: Buffer) {
            const p = parseRtp(buf);
            if (!p || p.payloadType !== payloadType) return;
            stats.received++;
            if (!started) {
                held.set(p.sequence, p.payload);
                if (next === undefined || seqDiff(p.sequence, next) < 0) next = p.sequence;
                if (held.size < startDepth) return;
                started = true;
                drain();
                return;
            }
            const d = seqDiff(p.sequence, next!);
            if (d < 0) {
                stats.late++;
                return;
            }
            if (d > 0) stats.reordered++;
            held.set(p.sequence, p.payload);
            drain();
            // Waited long enough for the missing one: go on from the oldest held packet.
            while (held.size > depth && next !== undefined) {
                let oldest: number = next;
                let best = Infinity;
                for (const seq of held.keys()) {
                    const ahead = seqDiff(seq, next);
                    if (ahead < best) [best, oldest] = [ahead, seq];
                }
                stats.lost += best;
                next = oldest;
                drain();
            }
        },
        stats: () => ({ ...stats, held: held.size }),
    };
}

/**
 * The video codec a program stream's map (PSM, 00 00 01 BC) names: h264, hevc, mpeg4, or undefined when `buf`
 * holds no map (ffmpeg's own PS muxer writes none; cameras do, with each keyframe).
 */
export function psVideoCodec(buf: Buffer): string | undefined {
    const at = buf.indexOf(Buffer.from([0, 0, 1, 0xbc]));
    if (at < 0 || buf.length < at + 12) return undefined;
    const infoLength = buf.readUInt16BE(at + 8);
    let i = at + 10 + infoLength;
    if (buf.length < i + 2) return undefined;
    const mapLength = buf.readUInt16BE(i);
    const end = Math.min(buf.length, i + 2 + mapLength);
    i += 2;
    while (i + 4 <= end) {
        const type = buf[i];
        const id = buf[i + 1];
        if (id >= 0xe0 && id <= 0xef)
            return { 0x1b: 'h264', 0x24: 'hevc', 0x10: 'mpeg4' }[type] ?? `0x${type.toString(16)}`;
        i += 4 + buf.readUInt16BE(i + 2);
    }
    return undefined;
}
