import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from './proxy';

/** The fault proxy against an echo server: it forwards, cuts, stalls, slows and restores as the scenarios rely on. */

let echo: net.Server;
let proxy: FaultProxy;

beforeAll(async () => {
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    proxy = new FaultProxy({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
    await proxy.listen();
});

afterAll(async () => {
    await proxy.close();
    await new Promise<void>((r) => echo.close(() => r()));
});

function open(): Promise<net.Socket> {
    const port = Number(new URL(proxy.url('redis://127.0.0.1:1/0')).port);
    return new Promise((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s));
        s.once('error', reject);
    });
}

/** What the socket receives within ms. */
function receive(s: net.Socket, ms: number): Promise<string> {
    return new Promise((resolve) => {
        let got = '';
        const on = (d: Buffer) => (got += String(d));
        s.on('data', on);
        setTimeout(() => (s.off('data', on), resolve(got)), ms);
    });
}

const closed = (s: net.Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

describe('FaultProxy', () => {
    it('forwards both ways while open', async () => {
        const s = await open();
        s.write('ping');
        expect(await receive(s, 200)).toBe('ping');
        s.destroy();
    });

    it('cut closes the open connections and refuses new ones until restored', async () => {
        const s = await open();
        proxy.cut();
        await closed(s);
        const refused = await open();
        await closed(refused);
        expect(proxy.refused).toBeGreaterThan(0);
        proxy.restore();
        const again = await open();
        again.write('back');
        expect(await receive(again, 200)).toBe('back');
        again.destroy();
    });

    it('stall keeps the socket and holds the bytes, restore passes them on in order', async () => {
        const s = await open();
        proxy.stall();
        s.write('held');
        expect(await receive(s, 300)).toBe('');
        expect(s.destroyed).toBe(false);
        const later = receive(s, 300);
        proxy.restore();
        expect(await later).toBe('held');
        s.destroy();
    });

    it('slow holds each chunk, each way', async () => {
        const s = await open();
        proxy.slow(150);
        const started = Date.now();
        const took = await new Promise<number>((resolve) => {
            s.once('data', () => resolve(Date.now() - started));
            s.write('slow');
        });
        // To the echo server and back: held twice.
        expect(took).toBeGreaterThanOrEqual(290);
        proxy.restore();
        s.destroy();
    });
});
