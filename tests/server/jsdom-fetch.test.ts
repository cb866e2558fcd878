// @vitest-environment jsdom
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';

/**
 * Resource tests render the console in jsdom and route its fetches to the in-process platform through msw.
 * This proves the server answers Requests that come from there: query, urlencoded, multipart and JSON
 * bodies, the token in the Authorization header, and the 401 without it.
 */
let platform: TestServer;
const msw = setupServer(http.all('*', ({ request }) => platform.app.fetch(request)));

beforeAll(async () => {
    platform = await createTestServer();
    msw.listen({ onUnhandledRequest: 'error' });
});
afterAll(async () => {
    msw.close();
    await platform?.close();
});

const origin = () => window.location.origin;
const auth = () => ({ Authorization: platform.token });

describe('the platform behind msw in jsdom', () => {
    it('runs in jsdom', () => {
        expect(typeof document).toBe('object');
        expect(navigator.userAgent).toContain('jsdom');
    });

    it('answers a GET with the token in the Authorization header', async () => {
        const res = await fetch(`${origin()}/api/product?pageNumber=1&pageSize=2`, { headers: auth() });
        expect(res.status).toBe(200);
        const body = await res.json();
        expect(body.code).toBe(200);
        expect(body.data.records).toHaveLength(2);
    });

    it('answers 401 with the login URL without a token', async () => {
        const res = await fetch(`${origin()}/api/menu`);
        expect(res.status).toBe(401);
        expect((await res.json()).data.loginUrl).toMatch(/^\/sso\/login\?redirect=/);
    });

    it('takes an urlencoded form body', async () => {
        const res = await fetch(`${origin()}/ms3/productLog/save`, {
            method: 'POST',
            headers: auth(),
            body: new URLSearchParams({ log: 'jsdom 表单' }),
        });
        expect(await res.json()).toMatchObject({ code: '000000', data: { log: 'jsdom 表单' } });
    });

    it('takes a multipart FormData body', async () => {
        const form = new FormData();
        form.append('productName', 'jsdom_产品');
        for (const [k, v] of Object.entries({
            categoryId: '3',
            nodeType: '0',
            gatewayType: '0',
            networkType: '5',
            dataType: '0',
        }))
            form.append(k, v);
        const res = await fetch(`${origin()}/api/product/save`, { method: 'POST', headers: auth(), body: form });
        expect(await res.json()).toMatchObject({ code: 200, data: { productName: 'jsdom_产品' } });
    });

    it('takes a JSON body and a DELETE with a query', async () => {
        const [product] = (await (await fetch(`${origin()}/api/product?pageSize=1`, { headers: auth() })).json()).data
            .records;
        const saved = await fetch(`${origin()}/api/function/save`, {
            method: 'POST',
            headers: { ...auth(), 'Content-Type': 'application/json' },
            body: JSON.stringify({
                productId: product.productId,
                type: 'service',
                identifier: 'Ping',
                name: '连通测试',
                callType: 'sync',
            }),
        });
        const fn = (await saved.json()).data;
        expect(fn).toMatchObject({ identifier: 'Ping', callType: 'sync' });
        const deleted = await fetch(`${origin()}/api/function/delete?id=${fn.id}`, {
            method: 'DELETE',
            headers: auth(),
        });
        expect(await deleted.json()).toEqual({ code: 200, msg: 'success', data: null });
    });
});
