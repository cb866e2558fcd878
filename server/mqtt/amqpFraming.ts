/**
 * AMQP 1.0 framing as rhea's server reads it, so the frame limit and rhea agree on every boundary. With SASL
 * mechanisms enabled and no ANONYMOUS (the platform's PLAIN sign-in), rhea reads through sasl.Server
 * (rhea/lib/sasl.js): an 8-byte SASL protocol header, then SASL frames until its sasl-outcome OK has gone out
 * (`read_complete`), then an 8-byte AMQP header and AMQP frames (rhea/lib/transport.js `Transport.read`). Where a frame
 * belongs, its first 4 bytes are its size, whatever they read: `AMQP` there is a frame of 0x414D5150 bytes (1.09 GB),
 * which rhea would buffer until it arrived. A protocol header is therefore taken only where rhea takes one: at the
 * start, and after the server's SASL outcome OK, which the guard sees go out (`saslOutcome`).
 *
 * rhea commits to reading the bytes at a frame start as a frame once it holds 4 of them (it then waits for that size),
 * and switches from SASL to AMQP only between two reads; the scanner switches at the same points.
 */

/** The largest SASL frame accepted: a sign-in is a few hundred bytes. */
export const MAX_SASL_FRAME_BYTES = 64 * 1024;

const SIGNATURE = Buffer.from('AMQP');
const SASL_PROTOCOL_ID = 3;
const AMQP_PROTOCOL_ID = 0;
const SASL_FRAME_TYPE = 1;
const AMQP_FRAME_TYPE = 0;
/** The descriptor of a sasl-outcome performative: 0x00, smallulong 0x53, code 0x44. */
const SASL_OUTCOME = Buffer.from([0x00, 0x53, 0x44]);

export type AmqpPhase = 'saslHeader' | 'sasl' | 'amqpHeader' | 'amqp';

/** A header or frame boundary the scanner passed, for tests that compare it with rhea's reading. */
export interface AmqpBoundary {
    kind: 'header' | 'frame';
    /** The frame's size (8 for a header). */
    size: number;
    /** Stream offset of its first byte. */
    at: number;
}

export interface AmqpLimits {
    maxFrame: number;
    maxSaslFrame?: number;
}

/** Reasons rhea's header check would refuse (frames.read_header and the transport's protocol id), or undefined. */
export function headerRefusal(head: Buffer, expectedId: number): string | undefined {
    if (!head.subarray(0, 4).equals(SIGNATURE)) {
        return head[0] === 0x16
            ? '收到的是 TLS 握手，这是明文端口（TLS 客户端请连接 AMQPS 端口）'
            : '开头不是 AMQP 协议头，不是 AMQP 1.0 客户端';
    }
    if (head[5] !== 1 || head[6] !== 0) return `不支持的 AMQP 版本 ${head[5]}.${head[6]}.${head[7]}`;
    if (head[4] !== expectedId) {
        return expectedId === SASL_PROTOCOL_ID ? '需要先进行 SASL 登录' : `此处应为 AMQP 协议头（协议号 ${head[4]}）`;
    }
    return undefined;
}

/** Reasons rhea's frame reading would refuse the 8-byte frame header (or buffer above `limit`), or undefined. */
export function frameRefusal(head: Buffer, have: number, limit: number, frameType: number): string | undefined {
    const size = head.readUInt32BE(0);
    if (size < 8) return `帧长度 ${size} 小于帧头`;
    if (size > limit) return `帧声明长度 ${size} 字节，超过上限 ${limit} 字节`;
    if (have < 6) return undefined;
    const doff = head[4];
    if (doff < 2 || doff * 4 > size) return `帧头偏移 ${doff} 无效`;
    if (head[5] !== frameType) {
        return frameType === SASL_FRAME_TYPE ? `登录阶段收到类型 ${head[5]} 的帧` : `收到类型 ${head[5]} 的帧`;
    }
    return undefined;
}

/**
 * Follows one AMQP connection's incoming bytes as rhea reads them and answers a refusal reason for the chunk that
 * must not reach rhea: a header where rhea expects another or none, a frame above the limit (SASL frames above
 * `maxSaslFrame`), a frame rhea would reject (size below 8, bad data offset, wrong frame type).
 */
export class AmqpFraming {
    phase: AmqpPhase = 'saslHeader';
    /** The server's SASL outcome OK has gone out: rhea reads an AMQP header from its next read on. */
    private signedIn = false;
    private readonly head = Buffer.alloc(8);
    private have = 0;
    /** Body bytes of the current frame still to pass. */
    private skip = 0;
    private offset = 0;
    private readonly maxFrame: number;
    private readonly maxSaslFrame: number;

    constructor(
        limits: AmqpLimits,
        private readonly observe?: (boundary: AmqpBoundary) => void,
    ) {
        this.maxFrame = limits.maxFrame;
        this.maxSaslFrame = Math.min(limits.maxSaslFrame ?? MAX_SASL_FRAME_BYTES, limits.maxFrame);
    }

    /** The server sent its sasl-outcome; OK means rhea reads the AMQP header from the next chunk on. */
    saslOutcome(ok: boolean): void {
        if (ok) this.signedIn = true;
    }

    scan(chunk: Buffer): string | undefined {
        if (this.signedIn && this.phase === 'sasl') {
            // rhea switches between reads, unless it holds 4 bytes of a frame: it then reads that frame as a header.
            if (this.skip > 0 || this.have >= 4) return '登录成功后仍在发送 SASL 帧';
            this.phase = 'amqpHeader';
        }
        let pos = 0;
        while (pos < chunk.length) {
            if (this.skip > 0) {
                const take = Math.min(this.skip, chunk.length - pos);
                this.skip -= take;
                pos += take;
                continue;
            }
            const take = Math.min(8 - this.have, chunk.length - pos);
            chunk.copy(this.head, this.have, pos, pos + take);
            this.have += take;
            pos += take;
            const reason = this.phase === 'saslHeader' || this.phase === 'amqpHeader' ? this.header() : this.frame();
            if (reason) return reason;
        }
        return undefined;
    }

    /** A protocol header: checked once its 4-byte signature (a TLS hello shows there) and then all 8 bytes are in. */
    private header(): string | undefined {
        if (this.have < 4) return undefined;
        const expected = this.phase === 'saslHeader' ? SASL_PROTOCOL_ID : AMQP_PROTOCOL_ID;
        if (!this.head.subarray(0, 4).equals(SIGNATURE)) return headerRefusal(this.head, expected);
        if (this.have < 8) return undefined;
        const reason = headerRefusal(this.head, expected);
        if (reason) return reason;
        this.observe?.({ kind: 'header', size: 8, at: this.offset });
        this.offset += 8;
        this.have = 0;
        this.phase = this.phase === 'saslHeader' ? 'sasl' : 'amqp';
        return undefined;
    }

    /** A frame header: its size is checked at 4 bytes (rhea commits to it there), offset and type at 6. */
    private frame(): string | undefined {
        if (this.have < 4) return undefined;
        const sasl = this.phase === 'sasl';
        const limit = sasl ? this.maxSaslFrame : this.maxFrame;
        const reason = frameRefusal(this.head, this.have, limit, sasl ? SASL_FRAME_TYPE : AMQP_FRAME_TYPE);
        if (reason || this.have < 8) return reason;
        const size = this.head.readUInt32BE(0);
        this.observe?.({ kind: 'frame', size, at: this.offset });
        this.offset += size;
        this.skip = size - 8;
        this.have = 0;
        return undefined;
    }
}

/**
 * Follows the server's own outgoing bytes up to its SASL outcome and answers it: true for OK, false for a refusal,
 * undefined while none has gone out. rhea writes its header and each frame with one `socket.write`; the bytes are
 * followed across writes all the same.
 */
export class SaslOutcomeWatch {
    private pending = Buffer.alloc(0);
    private headerSeen = false;
    done = false;

    /** Feeds outgoing bytes; answers the outcome's code once it is complete (0 is OK). */
    write(chunk: Buffer): number | undefined {
        if (this.done) return undefined;
        this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
        for (;;) {
            if (!this.headerSeen) {
                if (this.pending.length < 8) return undefined;
                this.headerSeen = true;
                this.pending = this.pending.subarray(8);
                continue;
            }
            if (this.pending.length < 8) return undefined;
            const size = this.pending.readUInt32BE(0);
            if (size < 8 || size > MAX_SASL_FRAME_BYTES) return this.finish(-1);
            if (this.pending.length < size) return undefined;
            const frame = this.pending.subarray(0, size);
            this.pending = this.pending.subarray(size);
            const code = outcomeCode(frame);
            if (code !== undefined) return this.finish(code);
        }
    }

    private finish(code: number): number {
        this.done = true;
        this.pending = Buffer.alloc(0);
        return code;
    }
}

/** The code of a sasl-outcome frame (the first field of its list: a ubyte), -1 when unreadable, else undefined. */
export function outcomeCode(frame: Buffer): number | undefined {
    const body = frame.subarray(frame[4] * 4);
    if (!body.subarray(0, 3).equals(SASL_OUTCOME)) return undefined;
    const list = body[3];
    // list8: size and count of one byte each; list32: of four bytes each; the first field follows.
    const field = list === 0xc0 ? 6 : list === 0xd0 ? 12 : -1;
    if (field < 0 || body[field] !== 0x50) return -1;
    return body[field + 1];
}
