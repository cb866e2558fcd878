import type { Duplex } from 'node:stream';
import { AmqpFraming, SaslOutcomeWatch } from './amqpFraming';
import { ConnackWatch, MqttFraming } from './mqttFraming';
import { SignInGate } from './signInGate';

export { MAX_CONNECT_BYTES } from './mqttFraming';

/**
 * Packet limits read from the raw stream, before a parser buffers a packet's body. aedes (mqtt-packet) and rhea both
 * keep every byte of a packet until its announced length has arrived, so an unauthenticated peer announcing 250 MB
 * and streaming it held that much memory. Here the length in each header is compared with the limit as the header
 * arrives, and the connection is closed from the header: at most the chunk that carried it ever reaches the parser.
 * The same guard serves MQTT over TCP, TLS and WebSocket (it wraps the stream aedes reads) and AMQP over TCP and TLS.
 * The framing models are the parsers' own (mqttFraming.ts for mqtt-packet, amqpFraming.ts for rhea); each learns the
 * sign-in from the server's own answer going out (CONNACK, SASL outcome). Connections not yet signed in are counted
 * by a SignInGate (signInGate.ts): at most its cap at once in the process.
 */

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

/** Connections not yet signed in, on every listener of this process, unless a guard is given its own gate. */
export const processGate = new SignInGate();

interface GuardOptions {
    refusal: RefusalLog;
    listener: string;
    gate?: SignInGate;
}

/**
 * Counts `conn` as not signed in until `signedIn` is called or it closes; answers false (and closes it) when the gate
 * is full.
 */
function admit(conn: Duplex, options: GuardOptions, address: string): (() => void) | undefined {
    const release = (options.gate ?? processGate).admit(address);
    if (!release) {
        refuse(conn, options, address, '未登录的连接过多，稍后重试');
        return undefined;
    }
    conn.once('close', release);
    return release;
}

/** Calls `watch` with each outgoing chunk until it answers true, then leaves `conn.write` as it was. */
export function watchWrites(conn: Duplex, watch: (chunk: Buffer) => boolean): void {
    const write = conn.write.bind(conn) as (...args: unknown[]) => boolean;
    conn.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
            if (watch(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))) Reflect.deleteProperty(conn, 'write');
        }
        return write(chunk, ...rest);
    }) as typeof conn.write;
}

/**
 * Checks every chunk aedes reads from `conn` (aedes reads with `conn.read()` on 'readable') and destroys the connection
 * at a header over the limit; the chunk is then withheld from aedes. The CONNACK aedes writes tells the sign-in.
 */
export function guardMqtt(conn: Duplex, options: GuardOptions & { maxPacket: number; address?: string }): void {
    const address = addressOf(conn, options.address);
    const signedIn = admit(conn, options, address);
    if (!signedIn) return;
    const framing = new MqttFraming({ maxPacket: options.maxPacket });
    const connack = new ConnackWatch();
    watchWrites(conn, (chunk) => {
        const code = connack.write(chunk);
        if (code === undefined) return false;
        framing.connack(code === 0);
        if (code === 0) signedIn(); // a refused CONNACK is followed by the close
        return true;
    });
    const read = conn.read.bind(conn);
    conn.read = (size?: number) => {
        const chunk = read(size) as Buffer | string | null;
        if (chunk === null || conn.destroyed) return chunk;
        const reason = framing.scan(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        if (!reason) return chunk;
        refuse(conn, options, address, reason);
        return null;
    };
}

/**
 * Checks every chunk of an AMQP socket before rhea's 'data' listeners see it and destroys the socket at a frame rhea
 * must not read (amqpFraming.ts); the SASL outcome rhea writes tells where the AMQP header belongs, and a refusing one
 * ends the connection. Data arriving
 * after rhea ended the socket (a close, or an error it stopped reading at) is not passed on: the socket is destroyed.
 * Also closes a peer that has not opened its AMQP connection within `handshakeTimeoutMs`. Returns the function to call
 * once the connection is open.
 */
export function guardAmqp(
    socket: Duplex,
    options: GuardOptions & { maxFrame: number; handshakeTimeoutMs: number },
): () => void {
    const address = addressOf(socket);
    const close = (reason: string) => refuse(socket, options, address, reason);
    const signedIn = admit(socket, options, address);
    if (!signedIn) return () => undefined;
    const framing = new AmqpFraming({ maxFrame: options.maxFrame });
    const outcome = new SaslOutcomeWatch();
    watchWrites(socket, (chunk) => {
        const code = outcome.write(chunk);
        if (code === undefined) return false;
        framing.saslOutcome(code === 0);
        if (code === 0) signedIn();
        // A refused sign-in ends the connection once its outcome has gone out: one guess per connection (rhea would
        // take another sasl-init on it until the handshake timeout).
        else setImmediate(() => socket.end());
        return code === 0;
    });
    // rhea reads with 'data' listeners: a chunk over the limit is withheld from them, not just followed by a close.
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
        if (event === 'data' && !socket.destroyed) {
            if (socket.writableEnded) {
                socket.destroy();
                return false;
            }
            const reason = framing.scan(args[0] as Buffer);
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
