import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { CONSOLE_CSP, FOREIGN_ORIGIN } from '../../server/http/guard';

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
});
afterAll(() => s?.close());

const save = (headers: Record<string, string>, name = `P${Date.now() % 100000}`) =>
    s.fetch('http://console.test:8080/api/project/save', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'console.test:8080', ...headers },
        body: new URLSearchParams({ classId: '1', name, remark: '' }),
    });

const projectCount = async () => (await (await s.fetch('/api/project/list?page=1&size=1')).json()).data.total as number;

describe('writes from another origin', () => {
    it('are refused with 403 and change nothing, another port of the same host included', async () => {
        const before = await projectCount();
        for (const headers of <Array<Record<string, string>>>[
            { origin: 'https://evil.example' },
            { origin: 'http://console.test:9999' },
            { origin: 'null' },
            { referer: 'http://evil.example/page.html' },
        ]) {
            const res = await save(headers);
            expect(res.status, JSON.stringify(headers)).toBe(403);
            expect((await res.json()).msg).toBe(FOREIGN_ORIGIN);
        }
        expect(await projectCount()).toBe(before);
    });

    it('pass from the console itself, behind a TLS proxy too, and without Origin (curl, devices)', async () => {
        expect((await (await save({ origin: 'http://console.test:8080' }, 'SameOrigin')).json()).code).toBe(200);
        const proxied = await save(
            { origin: 'https://iot.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'iot.example.com' },
            'Proxied',
        );
        expect((await proxied.json()).code).toBe(200);
        expect((await (await save({}, 'NoOrigin')).json()).code).toBe(200);
    });

    it('reads are not affected', async () => {
        const res = await s.fetch('/api/project/list?page=1&size=1', { headers: { origin: 'https://evil.example' } });
        expect(res.status).toBe(200);
    });
});

describe('security headers', () => {
    it('nosniff on every answer, API and sign-on page alike', async () => {
        for (const path of ['/api/menu', '/api/project/list', '/sso/login', '/api/nope']) {
            const res = await s.fetch(path);
            expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
        }
        expect((await s.anonFetch('/api/menu')).headers.get('x-content-type-options')).toBe('nosniff');
    });

    it("the console's HTML may not be framed and runs only this origin's scripts", async () => {
        const res = await s.anonFetch('/introduce');
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp).toBe(CONSOLE_CSP);
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("script-src 'self'");
    });

    it('the sign-on page keeps its own stricter policy', async () => {
        const csp = (await s.anonFetch('/sso/login')).headers.get('content-security-policy') ?? '';
        expect(csp).toContain("default-src 'none'");
    });
});
