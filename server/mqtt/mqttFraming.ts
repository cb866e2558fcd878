/**
 * MQTT framing as aedes' parser (mqtt-packet's Parser) reads it, so the packet limit and the parser agree on every
 * boundary: a fixed header byte whose flags mqtt-packet checks (`_parseHeader`), then the remaining length in 1-4
 * bytes of 7 bits (`_parseVarByteNum`: a 4th byte with its continuation bit set is an error there), then the body.
 */

/** The largest CONNECT accepted: a sign-in is a few hundred bytes; this leaves room for a will message. */
export const MAX_CONNECT_BYTES = 64 * 1024;

/** A boundary the scanner passed: a packet's type byte, remaining length and stream offset. */
export interface MqttBoundary {
    type: number;
    length: number;
    at: number;
}

export interface MqttLimits {
    maxPacket: number;
    maxConnect?: number;
    /** Bytes a peer may send after its CONNECT and before the CONNACK that signs it in (aedes queues them). */
    maxBeforeConnack?: number;
}

/** The flag bits mqtt-packet requires of each packet type (constants.requiredHeaderFlags); PUBLISH's are free. */
const REQUIRED_FLAGS: Record<number, number> = {
    1: 0,
    2: 0,
    4: 0,
    5: 0,
    6: 2,
    7: 0,
    8: 2,
    9: 0,
    10: 2,
    11: 0,
    12: 0,
    13: 0,
    14: 0,
    15: 0,
};

/** Why mqtt-packet would refuse this fixed header byte (or a packet it can only refuse), or undefined. */
export function typeByteRefusal(byte: number, first: boolean): string | undefined {
    if (first && byte !== 0x10) {
        return byte === 0x16
            ? '收到的是 TLS 握手，这是明文端口（TLS 客户端请连接 MQTTS 端口）'
            : `第一个报文不是 CONNECT（0x${byte.toString(16).padStart(2, '0')}），不是 MQTT 客户端`;
    }
    const type = byte >> 4;
    // mqtt-packet answers type 0 "Not supported" only once its whole body has arrived: refused from the header here.
    if (type === 0) return '报文类型 0 为保留类型';
    const required = REQUIRED_FLAGS[type];
    if (required !== undefined && (byte & 0x0f) !== required) return `报文类型 ${type} 的标志位错误`;
    if (type === 3 && ((byte >> 1) & 3) === 3) return 'PUBLISH 的 QoS 不能为 3';
    return undefined;
}

/**
 * Follows one MQTT connection's incoming bytes and answers a refusal reason for the chunk that must not reach the
 * parser: a first packet that is not a CONNECT, a header mqtt-packet refuses, a CONNECT above `maxConnect`, any packet
 * above `maxPacket`, more than `maxBeforeConnack` bytes before the sign-in, or a malformed length.
 */
export class MqttFraming {
    private first = true;
    /** The server's CONNACK accepted the connection. */
    private signedIn = false;
    private sentBeforeConnack = 0;
    private skip = 0;
    /** The type byte of the header being read, -1 between packets. */
    private type = -1;
    private length = 0;
    private multiplier = 1;
    private lengthBytes = 0;
    private offset = 0;
    private readonly maxPacket: number;
    private readonly maxConnect: number;
    private readonly maxBeforeConnack: number;

    constructor(
        limits: MqttLimits,
        private readonly observe?: (boundary: MqttBoundary) => void,
    ) {
        this.maxPacket = limits.maxPacket;
        this.maxConnect = Math.min(limits.maxConnect ?? MAX_CONNECT_BYTES, limits.maxPacket);
        this.maxBeforeConnack = limits.maxBeforeConnack ?? MAX_CONNECT_BYTES;
    }

    /** The server's CONNACK went out; accepted (return code 0) lifts the before-sign-in budget. */
    connack(accepted: boolean): void {
        if (accepted) this.signedIn = true;
    }

    scan(chunk: Buffer): string | undefined {
        let pos = 0;
        while (pos < chunk.length) {
            if (this.skip > 0) {
                const take = Math.min(this.skip, chunk.length - pos);
                this.skip -= take;
                pos += take;
                continue;
            }
            const byte = chunk[pos++];
            const reason = this.type < 0 ? this.typeByte(byte) : this.lengthByte(byte);
            if (reason) return reason;
        }
        return undefined;
    }

    private typeByte(byte: number): string | undefined {
        const reason = typeByteRefusal(byte, this.first);
        if (reason) return reason;
        this.type = byte;
        this.length = 0;
        this.multiplier = 1;
        this.lengthBytes = 0;
        return undefined;
    }

    private lengthByte(byte: number): string | undefined {
        this.length += (byte & 0x7f) * this.multiplier;
        this.multiplier *= 128;
        this.lengthBytes++;
        if (byte & 0x80) return this.lengthBytes >= 4 ? '报文长度字段格式错误' : undefined;
        const reason = this.limitRefusal();
        if (reason) return reason;
        this.observe?.({ type: this.type, length: this.length, at: this.offset });
        this.offset += 1 + this.lengthBytes + this.length;
        this.first = false;
        this.type = -1;
        this.skip = this.length;
        return undefined;
    }

    private limitRefusal(): string | undefined {
        const limit = this.first ? this.maxConnect : this.maxPacket;
        if (this.length > limit) {
            return `${this.first ? 'CONNECT ' : ''}报文声明长度 ${this.length} 字节，超过上限 ${limit} 字节`;
        }
        if (this.first || this.signedIn) return undefined;
        this.sentBeforeConnack += 1 + this.lengthBytes + this.length;
        if (this.sentBeforeConnack > this.maxBeforeConnack) {
            return `登录完成前发送的报文超过 ${this.maxBeforeConnack} 字节`;
        }
        return undefined;
    }
}

/**
 * Follows the server's outgoing bytes to its first packet, the CONNACK, and answers its return code (0: accepted);
 * undefined until complete. mqtt-packet writes a packet in pieces; the first 4 bytes are gathered across writes.
 */
export class ConnackWatch {
    private head: number[] = [];
    done = false;

    write(chunk: Buffer): number | undefined {
        if (this.done) return undefined;
        for (const byte of chunk.subarray(0, 4 - this.head.length)) this.head.push(byte);
        if (this.head[0] !== undefined && this.head[0] !== 0x20) return this.finish(-1);
        if (this.head.length < 4) return undefined;
        // [0x20, remaining length, flags, return code] (MQTT 3.1.1; an MQTT 5 CONNACK's reason code is there too).
        return this.finish(this.head[3]);
    }

    private finish(code: number): number {
        this.done = true;
        return code;
    }
}
