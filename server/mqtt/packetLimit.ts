import type { Duplex } from 'node:stream';

/**
 * Packet limits read from the raw stream, before a parser buffers a packet's body. aedes (mqtt-packet) and rhea both
 * keep every byte of a packet until its announced length has arrived, so an unauthenticated peer announcing 250 MB
 * and streaming it held that much memory. Here the length in each header is compared with the limit as the header
 * arrives, and the connection is closed from the header: at most the chunk that carried it ever reaches the parser.
 * The same guard serves MQTT over TCP, TLS and WebSocket (it wraps the stream aedes reads) and AMQP over TCP and TLS.
 */

/** The largest CONNECT accepted: a sign-in is a few hundred bytes; this leaves room for a will message. */
export const MAX_CONNECT_BYTES = 64 * 1024;

/** A refusal line once per key (listener and address) and minute, however many packets or connections it sends. */
export function createRefusalLog(log: (line: string) => void, windowMs = 60_000) {
    const last = new Map<string, number>();
    return (address: string, line: string) => {
        const now = Date.now();
        const at = last.get(address);
        if (at !== undefined && now - at < windowMs) return;
        if (last.size > 10_000) for (const [a, t] of last) if (now - t >= windowMs) last.delete(a);
        last.set(address, now);
        log(line);
    };
}

export type RefusalLog = ReturnType<typeof createRefusalLog>;

/**
 * Follows MQTT packet boundaries (fixed header: one type byte, then the remaining length in 1-4 bytes of 7 bits) and
 * answers a reason when a packet must not be read: the first packet is not a CONNECT, a CONNECT above `maxConnect`,
 * any packet above `maxPacket`, or a malformed length.
 */
export function mqttScanner(maxPacket: number, maxConnect = MAX_CONNECT_BYTES) {
    let first = true;
    let skip = 0; // body bytes of the current packet still to pass
    let type = -1; // the type byte of a header being read, -1 between packets
    let length = 0;
    let multiplier = 1;
    let lengthBytes = 0;
    return (chunk: Buffer): string | undefined => {
        let pos = 0;
        while (pos < chunk.length) {
            if (skip > 0) {
                const take = Math.min(skip, chunk.length - pos);
                skip -= take;
                pos += take;
                continue;
            }
            const byte = chunk[pos++];
            if (type < 0) {
                if (first && byte !== 0x10) {
                    return byte === 0x16
                        ? '收到的是 TLS 握手，这是明文端口（TLS 客户端请连接 MQTTS 端口）'
                        : `第一个报文不是 CONNECT（0x${byte.toString(16).padStart(2, '0')}），不是 MQTT 客户端`;
                }
                type = byte;
                length = 0;
                multiplier = 1;
                lengthBytes = 0;
                continue;
            }
            length += (byte & 0x7f) * multiplier;
            multiplier *= 128;
            if (++lengthBytes > 4) return '报文长度字段格式错误';
            if (byte & 0x80) continue;
            const limit = first ? Math.min(maxConnect, maxPacket) : maxPacket;
            if (length > limit) {
                return `${first ? 'CONNECT ' : ''}报文声明长度 ${length} 字节，超过上限 ${limit} 字节`;
            }
            first = false;
            type = -1;
            skip = length;
        }
        return undefined;
    };
}

function addressOf(conn: Duplex, fallback?: string): string {
    const remote = (conn as { remoteAddress?: string }).remoteAddress ?? fallback ?? '未知地址';
    return remote.replace(/^::ffff:/, '');
}

/** Logs why a connection is closed (once per listener, address and minute) and closes it. */
function refuse(conn: Duplex, options: { refusal: RefusalLog; listener: string }, address: string, reason: string) {
    options.refusal(
        `${options.listener} ${address}`,
        `${options.listener} 关闭来自 ${address} 的连接：${reason}（同一端口同一地址一分钟内只记录一次）`,
    );
    conn.destroy();
}

/**
 * Checks every chunk aedes reads from `conn` (aedes reads with `conn.read()` on 'readable') and destroys the connection
 * at a header over the limit; the chunk is then withheld from aedes.
 */
export function guardMqtt(
    conn: Duplex,
    options: { maxPacket: number; refusal: RefusalLog; listener: string; address?: string },
): void {
    const scan = mqttScanner(options.maxPacket);
    const read = conn.read.bind(conn);
    conn.read = (size?: number) => {
        const chunk = read(size) as Buffer | string | null;
        if (chunk === null || conn.destroyed) return chunk;
        const reason = scan(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        if (!reason) return chunk;
        refuse(conn, options, addressOf(conn, options.address), reason);
        return null;
    };
}

const AMQP_HEADER = Buffer.from('AMQP');

/**
 * Follows AMQP 1.0 framing: an 8-byte protocol header ("AMQP" + id + version; again after SASL), then frames whose first
 * 4 bytes are the frame's size. A frame above `maxFrame`, a size below the 8-byte frame header, or a first packet that
 * is not a protocol header is refused. Frames before the AMQP open (the SASL exchange) are held to MAX_CONNECT_BYTES.
 */
export function amqpScanner(maxFrame: number, maxSignIn = MAX_CONNECT_BYTES) {
    let skip = 0;
    const head = Buffer.alloc(8);
    let have = 0;
    let headers = 0; // protocol headers seen: the SASL one, then the AMQP one
    let protocolId = -1;
    return (chunk: Buffer): string | undefined => {
        let pos = 0;
        while (pos < chunk.length) {
            if (skip > 0) {
                const take = Math.min(skip, chunk.length - pos);
                skip -= take;
                pos += take;
                continue;
            }
            const take = Math.min(8 - have, chunk.length - pos);
            chunk.copy(head, have, pos, pos + take);
            have += take;
            pos += take;
            if (have < 4) continue;
            if (head.subarray(0, 4).equals(AMQP_HEADER)) {
                if (have < 8) continue;
                protocolId = head[4];
                headers++;
                have = 0;
                continue;
            }
            if (headers === 0) {
                return head[0] === 0x16
                    ? '收到的是 TLS 握手，这是明文端口（TLS 客户端请连接 AMQPS 端口）'
                    : '开头不是 AMQP 协议头，不是 AMQP 1.0 客户端';
            }
            const size = head.readUInt32BE(0);
            // SASL frames (protocol id 3) and everything before the AMQP header are the sign-in.
            const limit = protocolId === 3 ? Math.min(maxSignIn, maxFrame) : maxFrame;
            if (size < 8) return `帧长度 ${size} 小于帧头`;
            if (size > limit) return `帧声明长度 ${size} 字节，超过上限 ${limit} 字节`;
            skip = size - have;
            have = 0;
        }
        return undefined;
    };
}

/**
 * Checks every chunk of an AMQP socket before rhea's 'data' listeners see it and destroys the socket at a frame over the limit; also closes a peer that has not opened its AMQP connection within
 * `handshakeTimeoutMs`. Returns the function to call once the connection is open.
 */
export function guardAmqp(
    socket: Duplex,
    options: { maxFrame: number; refusal: RefusalLog; listener: string; handshakeTimeoutMs: number },
): () => void {
    const scan = amqpScanner(options.maxFrame);
    const address = addressOf(socket);
    const close = (reason: string) => refuse(socket, options, address, reason);
    // rhea reads with 'data' listeners: a chunk over the limit is withheld from them, not just followed by a close.
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
        if (event === 'data' && !socket.destroyed) {
            const reason = scan(args[0] as Buffer);
            if (reason) {
                close(reason);
                return false;
            }
        }
        return emit(event, ...args);
    }) as typeof socket.emit;
    const timer = setTimeout(
        () => close(`${options.handshakeTimeoutMs / 1000} 秒内未完成登录`),
        options.handshakeTimeoutMs,
    );
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    return () => clearTimeout(timer);
}
