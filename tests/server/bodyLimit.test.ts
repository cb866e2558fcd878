import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';

const MB = 1024 * 1024;
let s: TestServer;
let http: Server;
let base: string;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    http = createAdaptorServer({ fetch: s.app.fetch }) as Server;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
    await new Promise((resolve) => http?.close(resolve));
    await s?.close();
});

const form = (size: number) => `productName=${'x'.repeat(size)}`;
/** The body in 64 KB chunks, sent without Content-Length (Transfer-Encoding: chunked). */
const chunked = (text: string) =>
    new ReadableStream<Uint8Array>({
        start(controller) {
            const bytes = new TextEncoder().encode(text);
            for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
            controller.close();
        },
    });

async function post(body: BodyInit, init: RequestInit = {}) {
    const res = await fetch(`${base}/api/product/save`, {
        method: 'POST',
        headers: { authorization: s.token, 'content-type': 'application/x-www-form-urlencoded', origin: base },
        body,
        ...init,
    });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string } };
}

describe('the 10 MB limit of request bodies', () => {
    it('lets bodies under it through to the route, by Content-Length or in chunks', async () => {
        for (const body of [form(1000), chunked(form(1000))]) {
            const answer = await post(body, { duplex: 'half' } as RequestInit);
            // The route's own answer (its validation), not the limit's.
            expect(answer.status).not.toBe(413);
            expect(answer.body.msg).not.toContain('请求体过大');
        }
    });

    it('lets a DELETE without a body through', async () => {
        const res = await fetch(`${base}/api/device?deviceId=99999999`, {
            method: 'DELETE',
            headers: { authorization: s.token, origin: base },
        });
        expect(res.status).not.toBe(413);
        expect(((await res.json()) as { msg: string }).msg).not.toContain('请求体过大');
    });

    it('counts a body made in process without Content-Length', async () => {
        const res = await s.fetch('/api/product/save', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: chunked(form(11 * MB)),
            duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(413);
    });

    it('refuses a larger body by its Content-Length, and one sent in chunks as it comes', async () => {
        expect(await post(form(11 * MB))).toEqual({ status: 413, body: { code: 413, msg: '请求体过大（上限 10MB）' } });
        const streamed = await post(chunked(form(11 * MB)), { duplex: 'half' } as RequestInit);
        expect(streamed).toEqual({ status: 413, body: { code: 413, msg: '请求体过大（上限 10MB）' } });
    });

    // The server answers before the client has sent all of the body and closes that connection after it: the answer
    // says so (Connection: close), so a client never sends its next request on a connection about to close.
    it('answers every request that follows a refused body, on the same client', async () => {
        for (let round = 0; round < 5; round++) {
            const refused = await fetch(`${base}/api/product/save`, {
                method: 'POST',
                headers: { authorization: s.token, 'content-type': 'application/x-www-form-urlencoded', origin: base },
                body: form(11 * MB),
            });
            expect(refused.status).toBe(413);
            expect(refused.headers.get('connection')).toBe('close');
            await refused.arrayBuffer();
            const next = await fetch(`${base}/api/product?pageNumber=1&pageSize=1`, {
                headers: { authorization: s.token },
            });
            expect(next.status).toBe(200);
            expect(((await next.json()) as { code: number }).code).toBe(200);
        }
    });

    // A refusal before the body is read for another reason (no session, a foreign Origin) comes after the size check, so
    // the body is within the limit: Node reads it to its end and the connection stays usable without Connection: close.
    it('answers every request that follows a large body refused for its session or its Origin', async () => {
        const refusals: Array<[Record<string, string>, number]> = [
            [{ origin: base }, 401],
            [{ authorization: s.token, origin: 'http://elsewhere.example' }, 403],
        ];
        for (let round = 0; round < 3; round++) {
            for (const [headers, status] of refusals) {
                const refused = await fetch(`${base}/api/product/save`, {
                    method: 'POST',
                    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
                    body: form(10 * MB - 64),
                });
                expect(refused.status).toBe(status);
                await refused.arrayBuffer();
                const next = await fetch(`${base}/api/product?pageNumber=1&pageSize=1`, {
                    headers: { authorization: s.token },
                });
                expect(next.status).toBe(200);
                expect(((await next.json()) as { code: number }).code).toBe(200);
            }
        }
    });
});
