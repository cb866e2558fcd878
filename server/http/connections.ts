import type { Server, Socket } from 'node:net';
import { createRefusalLog } from '../mqtt/packetLimit';

/**
 * How many connections one HTTP or HTTPS listener holds, so a peer that has not signed in (no request needs a session
 * to open a connection) cannot make the process hold sockets without bound: each holds at most 16 KB of headers for
 * at most the headers' timeout (httpIdle.ts) before its first request; this bounds their number. A WebSocket (MQTT
 * over /mqtt) keeps its connection after the upgrade and counts too.
 */
export interface ConnectionBounds {
    /** Connections at once on the listener (HTTP_MAX_CONNECTIONS); the next is closed as it is accepted. */
    total: number;
    /** Connections at once from one address (HTTP_MAX_CONNECTIONS_PER_ADDRESS; 0: off, as behind a proxy). */
    perAddress: number;
}

/** The bounds ServerConfig gives every HTTP and HTTPS listener. */
export const httpBounds = (config: { httpMaxConnections: number; httpMaxConnectionsPerAddress: number }) => ({
    total: config.httpMaxConnections,
    perAddress: config.httpMaxConnectionsPerAddress,
});

const addressOf = (socket: Socket) => (socket.remoteAddress ?? '未知地址').replace(/^::ffff:/, '');

/** Counts one listener's connections per address, closing those beyond `perAddress`. */
function limitPerAddress(server: Server, perAddress: number, refuse: (address: string, why: string) => void) {
    const byAddress = new Map<string, number>();
    server.on('connection', (socket: Socket) => {
        const address = addressOf(socket);
        const mine = byAddress.get(address) ?? 0;
        if (mine >= perAddress) {
            refuse(address, `同一地址的连接已达上限 ${perAddress}（HTTP_MAX_CONNECTIONS_PER_ADDRESS）`);
            socket.destroy();
            return;
        }
        byAddress.set(address, mine + 1);
        socket.once('close', () => {
            const left = (byAddress.get(address) ?? 1) - 1;
            if (left > 0) byAddress.set(address, left);
            else byAddress.delete(address);
        });
    });
}

/** Applies the bounds to `server` (named `listener` in the refusal lines, once per address and minute). */
export function boundConnections(server: Server, bounds: ConnectionBounds, listener: string, log = console.warn) {
    const refusal = createRefusalLog(log);
    const refuse = (address: string, why: string) =>
        refusal(
            `${listener} ${address}`,
            `${listener} 关闭来自 ${address} 的连接：${why}（同一地址一分钟内只记录一次）`,
        );
    server.maxConnections = bounds.total;
    server.on('drop', (data?: { remoteAddress?: string }) =>
        refuse(
            (data?.remoteAddress ?? '未知地址').replace(/^::ffff:/, ''),
            `连接数已达上限 ${bounds.total}（HTTP_MAX_CONNECTIONS）`,
        ),
    );
    if (bounds.perAddress > 0) limitPerAddress(server, bounds.perAddress, refuse);
}
