import { gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip, COMPRESS_THRESHOLD } from '../../server/http/compress';
import { createTestServer, type TestServer } from '../../server/testing';

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ seed: true });
});
afterAll(() => s?.close());

/** Cached reads, uncached envelope answers and the menu, small and large. */
const TARGETS = [
    '/api/device/total',
    '/api/dashboard/count',
    '/api/product?pageNumber=1&pageSize=10',
    '/api/project/list?page=1&size=10',
    '/api/menu',
    '/api/device/nope',
    '/api/user/list?pageNumber=1&pageSize=10',
    '/api/role/list?pageNumber=1&pageSize=10',
    '/api/scene/list',
];

const decode = (encoding: string | null, bytes: Buffer) =>
    encoding === 'gzip' ? gunzipSync(bytes) : encoding === 'deflate' ? inflateSync(bytes) : bytes;

describe('compressed answers', () => {
    it('are the same answers: gzipped from 1 KB on for clients that take gzip, as they are below it', async () => {
        const seen = { small: 0, large: 0 };
        for (const target of TARGETS) {
            const plain = await s.fetch(target);
            expect(plain.headers.get('content-encoding')).toBeNull();
            const text = await plain.text();
            for (const accept of ['gzip', 'gzip, deflate, br', 'deflate;q=1, gzip;q=0.5']) {
                const res = await s.fetch(target, { headers: { 'accept-encoding': accept } });
                expect(res.status).toBe(plain.status);
                expect(res.headers.get('content-type')).toBe(plain.headers.get('content-type'));
                expect(res.headers.get('x-content-type-options')).toBe('nosniff');
                const encoding = res.headers.get('content-encoding');
                const bytes = Buffer.from(await res.arrayBuffer());
                expect(decode(encoding, bytes).toString('utf8'), `${target} (${accept})`).toBe(text);
                if (Buffer.byteLength(text) < COMPRESS_THRESHOLD) {
                    expect(encoding, `${target} (${accept})`).toBeNull();
                    seen.small++;
                } else {
                    // One the client takes (the kept answers of the busiest reads are kept gzipped only).
                    const taken = accept.startsWith('deflate') ? ['deflate', 'gzip'] : ['gzip'];
                    expect(taken, `${target} (${accept})`).toContain(encoding);
                    expect(res.headers.get('vary')).toContain('Accept-Encoding');
                    expect(bytes.length).toBeLessThan(Buffer.byteLength(text));
                    seen.large++;
                }
            }
        }
        expect(seen.small).toBeGreaterThan(0);
        expect(seen.large).toBeGreaterThan(0);
    });

    it('are never gzipped for a client that refuses gzip, cached answers and the menu included', async () => {
        for (const target of TARGETS) {
            const text = await (await s.fetch(target)).text();
            for (const accept of ['gzip;q=0', 'identity', 'deflate, gzip;q=0', '*;q=0', 'br']) {
                const res = await s.fetch(target, { headers: { 'accept-encoding': accept } });
                const encoding = res.headers.get('content-encoding');
                expect(encoding, `${target} (${accept})`).not.toBe('gzip');
                const bytes = Buffer.from(await res.arrayBuffer());
                expect(decode(encoding, bytes).toString('utf8'), `${target} (${accept})`).toBe(text);
            }
        }
    });
});

describe('acceptsGzip', () => {
    it('reads Accept-Encoding with its q-values', () => {
        expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
        expect(acceptsGzip('GZIP')).toBe(true);
        expect(acceptsGzip('deflate;q=1, gzip;q=0.5')).toBe(true);
        expect(acceptsGzip('*')).toBe(true);
        expect(acceptsGzip('gzip;q=0')).toBe(false);
        expect(acceptsGzip('*, gzip;q=0')).toBe(false);
        expect(acceptsGzip('*;q=0')).toBe(false);
        expect(acceptsGzip('x-gzip-like, br')).toBe(false);
        expect(acceptsGzip('')).toBe(false);
        expect(acceptsGzip(undefined)).toBe(false);
    });
});
