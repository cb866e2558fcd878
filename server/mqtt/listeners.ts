import { createServer, type Server as NetServer } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream } from 'ws';
import { guardMqtt, type RefusalLog } from './packetLimit';

/** The broker's listeners (TCP, TLS, WebSocket) and what each connection goes through before aedes. */
export interface Listeners {
    servers: NetServer[];
    tlsServers: TlsServer[];
    wss: WebSocketServer;
    /** Connections that arrived over TLS (MQTTS, or WebSocket over HTTPS). */
    secure: WeakSet<object>;
    maxPacketBytes: number;
    connectTimeoutMs: number;
    refusal: RefusalLog;
    /** aedes' handle. */
    handle(conn: Duplex, req?: IncomingMessage): void;
}

export function createListeners(options: Omit<Listeners, 'servers' | 'tlsServers' | 'wss' | 'secure'>): Listeners {
    return {
        ...options,
        servers: [],
        tlsServers: [],
        // ws buffers a whole WebSocket frame before handing it on: its own limit, checked from the frame header, keeps
        // that to one packet (the MQTT guard then follows packets across frames).
        wss: new WebSocketServer({ noServer: true, maxPayload: options.maxPacketBytes + 8 }),
        secure: new WeakSet(),
    };
}

/** A new connection: marked when over TLS, held to the packet limit, handed to aedes. */
export function takeConnection(l: Listeners, conn: Duplex, listener: string, isSecure: boolean, req?: IncomingMessage) {
    if (isSecure) l.secure.add(conn);
    guardMqtt(conn, { maxPacket: l.maxPacketBytes, refusal: l.refusal, listener, address: req?.socket.remoteAddress });
    l.handle(conn, req);
}

function listenOn(server: NetServer, port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
            server.off('error', reject);
            resolve((server.address() as { port: number }).port);
        });
    });
}

/** Listens for MQTT over TCP; resolves with the port taken. */
export function listenTcp(l: Listeners, port: number, host: string): Promise<number> {
    const server = createServer((socket) => takeConnection(l, socket, 'MQTT', false));
    l.servers.push(server);
    return listenOn(server, port, host);
}

/** Listens for MQTT over TLS (MQTTS); resolves with the port taken. */
export function listenTls(l: Listeners, port: number, host: string, context: SecureContextOptions): Promise<number> {
    const server = createTlsServer({ ...context, handshakeTimeout: l.connectTimeoutMs }, (socket) =>
        takeConnection(l, socket, 'MQTTS', true),
    );
    // Plaintext on the TLS port, a stalled handshake, garbage: Node closes the socket; one line per address.
    server.on('tlsClientError', (err, socket) => {
        const address = (socket.remoteAddress ?? '未知地址').replace(/^::ffff:/, '');
        l.refusal(
            `MQTTS ${address}`,
            `MQTTS 关闭来自 ${address} 的连接：TLS 握手失败（${err.message}）（同一端口同一地址一分钟内只记录一次）`,
        );
        socket.destroy(); // with a listener here, Node leaves the closing to it
    });
    l.servers.push(server);
    l.tlsServers.push(server);
    return listenOn(server, port, host);
}

/** MQTT over WebSocket on the HTTP (or HTTPS) server's /mqtt (the mqtt subprotocol). */
export function attachWebSocket(l: Listeners, http: HttpServer | HttpsServer) {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if ((req.url ?? '').split('?')[0] !== '/mqtt') return;
        l.wss.handleUpgrade(req, socket, head, (ws) => {
            const stream = createWebSocketStream(ws);
            stream.on('error', () => undefined);
            const isSecure = 'encrypted' in req.socket && Boolean(req.socket.encrypted);
            takeConnection(l, stream, isSecure ? 'MQTT over WSS' : 'MQTT over WebSocket', isSecure, req);
        });
    });
}

/** Stops taking connections (those made stay). */
export function stopListening(l: Listeners) {
    for (const s of l.servers) s.close();
    l.wss.close();
}
