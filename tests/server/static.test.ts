import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import type { Db } from '../../server/db/client';
import { createTestServer, type TestServer } from '../../server/testing';

const publicDir = mkdtempSync(path.join(os.tmpdir(), 'iot-dist-'));
mkdirSync(path.join(publicDir, 'assets'));
writeFileSync(path.join(publicDir, 'index.html'), '<!doctype html><div id="root">console</div>');
writeFileSync(path.join(publicDir, 'assets', 'index-abc123.js'), 'console.log(1)');
writeFileSync(path.join(publicDir, 'favicon.svg'), '<svg/>');

let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({ seed: false, config: { publicDir } });
});
afterAll(() => s?.close());

describe('the built console on the same port', () => {
    it('serves files, with long caching for hashed assets only', async () => {
        const asset = await s.anonFetch('/assets/index-abc123.js');
        expect(asset.status).toBe(200);
        expect(asset.headers.get('content-type')).toMatch(/javascript/);
        expect(asset.headers.get('cache-control')).toContain('immutable');
        expect(await asset.text()).toBe('console.log(1)');
        const icon = await s.anonFetch('/favicon.svg');
        expect(icon.headers.get('cache-control')).toBe('no-cache');
    });

    it('answers index.html for deep links, without a session', async () => {
        for (const p of ['/', '/product', '/productDetail/view?productId=1', '/devices/pk/dev.01']) {
            const res = await s.anonFetch(p);
            expect(res.status, p).toBe(200);
            expect(await res.text(), p).toContain('<div id="root">console</div>');
        }
    });

    it('keeps API and sign-on paths out of the fallback, and 404s a missing asset', async () => {
        expect((await s.anonFetch('/api/nothing')).status).toBe(401);
        const unknown = await s.fetch('/api/nothing');
        expect(await unknown.json()).toEqual({ code: 404, msg: '接口不存在' });
        expect((await s.anonFetch('/assets/old-hash.js')).status).toBe(404);
        expect(await (await s.anonFetch('/sso/login')).text()).toContain('<form');
        expect((await s.anonFetch('/product', { method: 'POST' })).status).toBe(404);
    });

    it('asks for a build when there is no index.html', async () => {
        const app = createApp({ db: {} as Db, config: { ...s.config, publicDir: path.join(publicDir, 'none') } });
        const res = await app.request('/product');
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('npm run build');
    });
});

describe('unexpected errors', () => {
    const broken = new Proxy({} as Db, {
        get: () => {
            throw new Error('database is down');
        },
    });

    it.each([
        ['/api/menu', { code: 500, msg: '系统错误' }],
        ['/ms3/productLog/find', { code: '999999', msg: '系统错误' }],
    ])('%s answers 500 in its envelope and logs the error', async (p, body) => {
        const logged: unknown[] = [];
        const app = createApp({ db: broken, config: s.config, logError: (_m, err) => logged.push(err) });
        const res = await app.request(p, {
            method: p.startsWith('/ms3') ? 'POST' : 'GET',
            headers: { authorization: 'x' },
        });
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual(body);
        expect(String(logged[0])).toContain('database is down');
    });
});
