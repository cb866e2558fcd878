import type { Server } from 'node:http';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) is shorter than the clients' own reuse
 * window: a client that reuses its idle connection just as the server closes it gets ECONNRESET ("socket hang up"),
 * which browsers retry but HAProxy's connection reuse, Playwright's and Node's request agents do not. 65 s outlasts
 * HAProxy's and the usual load balancers' 60 s idle timeouts; the headers' timeout is kept above it, as Node asks.
 */
export const KEEP_ALIVE_MS = 65_000;

export function keepIdleConnections(server: Pick<Server, 'keepAliveTimeout' | 'headersTimeout'>): void {
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
