import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boundConnections } from '../../server/http/connections';

/**
 * An HTTP listener holds a bounded number of connections, however many a peer that never signs in opens: the one
 * beyond the total, or beyond the per-address bound, is closed as it is accepted (and said once a minute), and a
 * slot freed by a close is taken again.
 */

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
});

async function listening(bounds: { total: number; perAddress: number }, lines: string[]) {
    server = createServer((_req, res) => res.end('ok'));
    boundConnections(server, bounds, 'HTTP', (line) => lines.push(line));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
}

/** Opens a connection and answers whether the server kept it (an answered request) or closed it. */
async function kept(port: number): Promise<boolean> {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    return new Promise((resolve) => {
        let data = '';
        socket.on('data', (d) => {
            data += d;
            if (data.includes('\r\n\r\nok')) resolve(true);
        });
        socket.on('close', () => resolve(false));
        socket.on('error', () => resolve(false));
        socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    });
}

describe('boundConnections', () => {
    it('closes the connection beyond the total and takes one again once a slot is free', async () => {
        const lines: string[] = [];
        const port = await listening({ total: 3, perAddress: 0 }, lines);
        expect(await Promise.all([kept(port), kept(port), kept(port)])).toEqual([true, true, true]);
        expect(await kept(port)).toBe(false);
        expect(await kept(port)).toBe(false);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain('连接数已达上限 3（HTTP_MAX_CONNECTIONS）');
        const first = sockets[0];
        await new Promise((r) => {
            first.once('close', r);
            first.destroy();
        });
        await expect.poll(() => kept(port), { timeout: 2_000 }).toBe(true);
    });

    it('closes the connection beyond the per-address bound', async () => {
        const lines: string[] = [];
        const port = await listening({ total: 100, perAddress: 2 }, lines);
        expect(await Promise.all([kept(port), kept(port)])).toEqual([true, true]);
        expect(await kept(port)).toBe(false);
        expect(lines[0]).toMatch(/HTTP 关闭来自 127\.0\.0\.1 的连接：同一地址的连接已达上限 2/);
        sockets[0].destroy();
        await expect.poll(() => kept(port), { timeout: 2_000 }).toBe(true);
    });
});
