import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpDestination, type HttpConfig } from '../../server/forward/destinations/http';
import { makeCertificates } from '../../server/tls/generated';
import { closedPort, expectRefusal, record, refusalOf, silentContext } from './forwardSupport';

/**
 * The HTTP(S) destination against receivers this file starts on port 0: node:http for the answers (2xx, 4xx, 5xx,
 * slow), node:https with a certificate of a CA nobody trusts for the certificate check.
 */

interface Received {
    method: string;
    headers: IncomingMessage['headers'];
    body: string;
}

type Answer = (got: Received, index: number) => { status: number; delayMs?: number; headers?: Record<string, string> };

function listen(server: Server): Promise<string> {
    return new Promise((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as { port: number }).port}`)),
    );
}

describe('forwarding by HTTP(S)', () => {
    const received: Received[] = [];
    let answer: Answer = () => ({ status: 200 });
    let base = '';

    const receive = (req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            const got = { method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
            received.push(got);
            const { status, delayMs = 0, headers = {} } = answer(got, received.length - 1);
            setTimeout(() => res.writeHead(status, headers).end(`answer ${status}`), delayMs);
        });
    };
    const server = createServer(receive);

    const open = async (extra: Record<string, unknown> = {}) => {
        const config = await httpDestination.schema.validate({ url: `http://${base}/hook`, ...extra });
        return httpDestination.open(config as HttpConfig, silentContext);
    };

    beforeAll(async () => {
        base = await listen(server);
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    beforeEach(() => {
        received.length = 0;
        answer = () => ({ status: 200 });
    });

    it('posts one request per record, in order, with the default body, X-Forward-Id and the headers set', async () => {
        const sender = await open({ headers: [{ name: 'Authorization', value: 'Bearer t1' }] });
        const sent = [record(1, { temp: 21.5, meta: { a: 1 } }), record(2, { temp: null }), record(3, {})];
        await sender.send(sent);
        expect(received.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
        expect(received.map((r) => JSON.parse(r.body))).toEqual(
            sent.map(({ id, flowId, flowName, productKey, deviceName, topic, ts, row }) => ({
                ...{ id, flowId, flowName, productKey, deviceName, topic, ts, row },
            })),
        );
        expect(received.map((r) => r.headers['x-forward-id'])).toEqual(sent.map((r) => r.id));
        expect(received[0].headers['content-type']).toBe('application/json; charset=utf-8');
        expect(received[0].headers.authorization).toBe('Bearer t1');
        expect(received[0].headers['x-signature']).toBeUndefined();
    });

    it('signs the body with HMAC-SHA256 the receiver can verify, under the configured header', async () => {
        const sender = await open({ hmacSecret: 's3cret', signatureHeader: 'X-Hub-Signature-256' });
        await sender.send([record(1, { temp: 1 }), record(2, { text: '温度' })]);
        for (const got of received) {
            const expected = `sha256=${createHmac('sha256', 's3cret').update(got.body).digest('hex')}`;
            expect(got.headers['x-hub-signature-256']).toBe(expected);
        }
        expect(received).toHaveLength(2);
    });

    it('sends a batch as one request whose body is the JSON array of the default bodies', async () => {
        const sender = await open({ batch: true, hmacSecret: 'k' });
        const sent = [record(1, { n: 1 }), record(2, { n: 2 }), record(3, { n: 3 })];
        await sender.send(sent);
        expect(received).toHaveLength(1);
        const body = JSON.parse(received[0].body) as Array<{ id: string; row: unknown; deviceName: string }>;
        expect(body.map((b) => [b.id, b.deviceName, b.row])).toEqual(sent.map((r) => [r.id, r.deviceName, r.row]));
        expect(received[0].headers['x-forward-id']).toBe(sent[0].id);
        expect(received[0].headers['x-forward-count']).toBe('3');
        expect(received[0].headers['x-signature']).toBe(
            `sha256=${createHmac('sha256', 'k').update(received[0].body).digest('hex')}`,
        );
    });

    it('renders the body template and uses PUT and a configured content type', async () => {
        const sender = await open({
            method: 'put',
            bodyTemplate: 'device=${deviceName}&temp=${temp}',
            headers: [{ name: 'Content-Type', value: 'text/plain' }],
        });
        await sender.send([record(4, { temp: 30 })]);
        expect(received.map((r) => [r.method, r.body, r.headers['content-type']])).toEqual([
            ['PUT', 'device=d-4&temp=30', 'text/plain'],
        ]);
    });

    it('takes 500, 429 and 408 as transient, 400, 401 and a redirect as permanent', async () => {
        const sender = await open();
        for (const [status, permanent] of [
            [500, false],
            [503, false],
            [429, false],
            [408, false],
            [400, true],
            [401, true],
            [404, true],
        ] as const) {
            answer = () => ({ status });
            const error = await expectRefusal(sender.send([record(1, {})]), permanent, new RegExp(`HTTP ${status}`));
            expect(error.message).toMatch(/answer \d+/);
        }
        received.length = 0;
        answer = (got) =>
            got.method === 'POST' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 };
        await expectRefusal(sender.send([record(1, {})]), true, /重定向到 \/elsewhere/);
        expect(received.map((r) => r.method)).toEqual(['POST']);
    });

    it('stops at the first refused record: the ones after it are not sent', async () => {
        answer = (_, index) => ({ status: index === 1 ? 503 : 200 });
        const sender = await open();
        const sent = [record(1, {}), record(2, {}), record(3, {})];
        await expectRefusal(sender.send(sent), false, /HTTP 503/);
        expect(received.map((r) => r.headers['x-forward-id'])).toEqual([sent[0].id, sent[1].id]);
    });

    it('answers a timeout and a closed port with transient Chinese errors', async () => {
        answer = () => ({ status: 200, delayMs: 1500 });
        const slow = await open({ timeoutMs: 200 });
        await expectRefusal(slow.send([record(1, {})]), false, /超时（200 毫秒内没有应答）/);
        const port = await closedPort();
        const closed = await open({ url: `http://127.0.0.1:${port}/x` });
        await expectRefusal(closed.send([record(1, {})]), false, /无法连接推送地址 .*：连接被拒绝/);
        await expectRefusal(closed.test(), false, new RegExp(`无法连接推送地址 127\\.0\\.0\\.1:${port}：连接被拒绝`));
    });

    it('tests the connection without sending a request; names a host that does not resolve', async () => {
        await expect((await open()).test()).resolves.toBeUndefined();
        expect(received).toHaveLength(0);
        const unknown = await open({ url: 'http://no-such-host.invalid/x' });
        await expectRefusal(unknown.test(), false, /无法解析主机名 no-such-host\.invalid/);
    });
});

describe('forwarding by HTTPS to a certificate nobody trusts', () => {
    let url = '';
    let requests = 0;
    let server: ReturnType<typeof createHttpsServer>;

    beforeAll(async () => {
        const made = await makeCertificates({ dns: ['localhost'], ip: ['127.0.0.1'] });
        server = createHttpsServer({ cert: made.certPem, key: made.keyPem }, (_, res) => (requests++, res.end()));
        url = `https://${await listen(server as unknown as Server)}/hook`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('refuses the certificate in test() and send, transient, and delivers nothing', async () => {
        const config = await httpDestination.schema.validate({ url });
        const sender = httpDestination.open(config as HttpConfig, silentContext);
        await expectRefusal(sender.test(), false, /证书不受信任|无法验证对方证书/);
        await expectRefusal(sender.send([record(1, {})]), false, /证书不受信任|无法验证对方证书/);
        expect(requests).toBe(0);
    });
});

describe('the HTTP destination configuration', () => {
    const schema = httpDestination.schema;
    const good = { url: ' https://example.com/hook ' };

    it('fills defaults, trims and lists the HMAC key as secret', async () => {
        expect(await schema.validate(good)).toMatchObject({
            url: 'https://example.com/hook',
            method: 'POST',
            batch: false,
            signatureHeader: 'X-Signature',
            timeoutMs: 5000,
        });
        expect(httpDestination.secretFields).toEqual(['hmacSecret']);
    });

    it('refuses other schemes, methods, timeouts, bad headers, unknown keys and NUL, naming the field', async () => {
        const refusal = (extra: Record<string, unknown>) => refusalOf(() => schema.validate({ ...good, ...extra }));
        expect(await refusal({ url: 'ftp://x/y' })).toBe('推送地址必须是以 http:// 或 https:// 开头的有效 URL');
        expect(await refusal({ url: 'not a url' })).toMatch(/推送地址必须是/);
        expect(await refusal({ method: 'GET' })).toBe('请求方法必须是 POST 或 PUT');
        expect(await refusal({ timeoutMs: 50 })).toBe('超时时间（毫秒）必须是 100-60000 的整数');
        expect(await refusal({ timeoutMs: 60001 })).toBe('超时时间（毫秒）必须是 100-60000 的整数');
        expect(await refusal({ headers: [{ name: 'a b', value: 'x' }] })).toMatch(/请求头名称只能包含/);
        expect(await refusal({ headers: [{ name: 'X-A', value: 'x\r\ny: 1' }] })).toBe('请求头的值不能包含换行');
        expect(await refusal({ headers: [{ name: 'X-Forward-Id', value: '1' }] })).toMatch(/由平台设置/);
        expect(await refusal({ url: 'https://u:p@example.com/' })).toMatch(/不能包含用户名和密码/);
        const signature = { headers: [{ name: 'x-signature', value: '1' }] };
        expect(await refusal(signature)).toBe('请求头不能与签名请求头同名：签名由平台计算');
        expect(await refusal({ secret: 'x' })).toMatch(/未知字段：secret/);
        expect(await refusal({ hmacSecret: 'a\u0000' })).toMatch(/签名密钥含有非法字符/);
    });
});
