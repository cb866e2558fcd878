import net from 'node:net';

/**
 * A TCP proxy the fault-injection tests own, between the server processes and one service (PostgreSQL, Redis): the
 * test faults the link without touching the machine's service.
 *
 * - cut(): every open connection is destroyed and new ones are refused (closed on accept) until restore();
 * - stall(): bytes stop flowing both ways, the sockets stay open (a hung peer, a dropped route);
 * - slow(ms): each chunk is held ms before it is passed on;
 * - restore(): back to forwarding; stalled bytes are passed on in order.
 */
export type LinkState = { kind: 'open' } | { kind: 'cut' } | { kind: 'stall' } | { kind: 'slow'; ms: number };

interface Pipe {
    client: net.Socket;
    upstream: net.Socket;
}

export class FaultProxy {
    state: LinkState = { kind: 'open' };
    /** Connections accepted and refused over the proxy's life. */
    accepted = 0;
    refused = 0;
    private readonly pipes = new Set<Pipe>();
    private readonly server: net.Server;
    private port = 0;

    constructor(
        private readonly target: { host: string; port: number },
        private readonly label = `${target.host}:${target.port}`,
    ) {
        this.server = net.createServer((client) => this.accept(client));
    }

    async listen(): Promise<number> {
        await new Promise<void>((resolve, reject) => {
            this.server.once('error', reject);
            this.server.listen(0, '127.0.0.1', () => resolve());
        });
        this.port = (this.server.address() as net.AddressInfo).port;
        return this.port;
    }

    /** The proxy's address in place of the target's in a connection URL (postgres://, redis://). */
    url(serviceUrl: string): string {
        const u = new URL(serviceUrl);
        u.hostname = '127.0.0.1';
        u.port = String(this.port);
        return u.toString();
    }

    get connections(): number {
        return this.pipes.size;
    }

    cut(): void {
        this.state = { kind: 'cut' };
        for (const p of this.pipes) destroyPipe(p);
        this.pipes.clear();
    }

    stall(): void {
        this.state = { kind: 'stall' };
        for (const p of this.pipes) {
            p.client.pause();
            p.upstream.pause();
        }
    }

    slow(ms: number): void {
        this.restore();
        this.state = { kind: 'slow', ms };
    }

    restore(): void {
        this.state = { kind: 'open' };
        for (const p of this.pipes) {
            p.client.resume();
            p.upstream.resume();
        }
    }

    async close(): Promise<void> {
        for (const p of this.pipes) destroyPipe(p);
        this.pipes.clear();
        await new Promise<void>((r) => this.server.close(() => r()));
    }

    toString(): string {
        return `${this.label} via :${this.port} (${this.state.kind})`;
    }

    private accept(client: net.Socket): void {
        if (this.state.kind === 'cut') {
            this.refused++;
            client.destroy();
            return;
        }
        this.accepted++;
        const upstream = net.connect(this.target.port, this.target.host);
        const pipe: Pipe = { client, upstream };
        this.pipes.add(pipe);
        const end = () => {
            this.pipes.delete(pipe);
            destroyPipe(pipe);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        this.forward(client, upstream);
        this.forward(upstream, client);
        if (this.state.kind === 'stall') {
            client.pause();
            upstream.pause();
        }
    }

    /** Passes from's bytes to to, in order, held per chunk while the link is slow. */
    private forward(from: net.Socket, to: net.Socket): void {
        let chain = Promise.resolve();
        from.on('data', (chunk: Buffer) => {
            const state = this.state;
            if (state.kind !== 'slow') {
                if (!to.destroyed) to.write(chunk);
                return;
            }
            from.pause();
            chain = chain
                .then(() => new Promise((r) => setTimeout(r, state.ms)))
                .then(() => {
                    if (!to.destroyed) to.write(chunk);
                    if (this.state.kind !== 'stall') from.resume();
                });
        });
    }
}

function destroyPipe(p: Pipe): void {
    p.client.destroy();
    p.upstream.destroy();
}

export async function startProxy(serviceUrl: string, label?: string): Promise<FaultProxy> {
    const u = new URL(serviceUrl);
    const defaultPort = u.protocol.startsWith('redis') ? 6379 : 5432;
    const proxy = new FaultProxy({ host: u.hostname, port: Number(u.port || defaultPort) }, label);
    await proxy.listen();
    return proxy;
}
