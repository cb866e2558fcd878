/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { createHash } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { createSipServer, parseSip, type SipServer } from '../../server/video/sip';

/**
 * The GB/T 28181 SIP endpoint with this test playing the camera over UDP: REGISTER challenged and accepted with the
 * digest of the camera's password, a wrong password refused, the catalog query answered with two channels,
 * keep-alives, and the camera going offline when they stop.
 */

let server: TestServer;
let sip: SipServer;
let camera: Socket;
let gbId: string;
let deviceId: number;
const inbox: string[] = [];

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const get = async (path: string) => ((await (await server.fetch(path)).json()) as { data: any }).data;

/** Sends a request and waits for the next message the platform sends back (an answer or its own request). */
async function exchange(text: string, match: (m: string) => boolean = () => true): Promise<string> {
    const start = inbox.length;
    camera.send(Buffer.from(text), sip.port(), '127.0.0.1');
    for (let i = 0; i < 100; i++) {
        const found = inbox.slice(start).find(match);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no answer to ${text.split('\r\n')[0]}`);
}

let cseq = 1;
function request(method: string, extra: string[] = [], body = '') {
    const port = camera.address().port;
    return [
        `${method} sip:34020000002000000001@3402000000 SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${port};rport;branch=z9hG4bK${cseq}`,
        `From: <sip:${gbId}@3402000000>;tag=cam${cseq}`,
        `To: <sip:${gbId}@3402000000>`,
        `Call-ID: call-${method}-${cseq}`,
        `CSeq: ${cseq++} ${method}`,
        'Max-Forwards: 70',
        ...extra,
        ...(body ? ['Content-Type: Application/MANSCDP+xml'] : []),
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
    ].join('\r\n');
}

async function register(password: string) {
    const challenge = parseSip(await exchange(request('REGISTER', ['Expires: 3600'])))!;
    expect(challenge.start).toBe('SIP/2.0 401 Unauthorized');
    const auth = challenge.headers.get('www-authenticate')![0];
    const nonce = /nonce="([^"]+)"/.exec(auth)![1];
    const realm = /realm="([^"]+)"/.exec(auth)![1];
    const uri = 'sip:34020000002000000001@3402000000';
    const response = md5(`${md5(`${gbId}:${realm}:${password}`)}:${nonce}:${md5(`REGISTER:${uri}`)}`);
    const header = `Authorization: Digest username="${gbId}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", algorithm=MD5`;
    return exchange(request('REGISTER', ['Expires: 3600', header]), (m) => m.startsWith('SIP/2.0'));
}

beforeAll(async () => {
    server = await createTestServer();
    const products = ((await (await server.fetch('/api/product/list-product')).json()) as any).data.list;
    const added = await server.fetch('/api/video-device/add-gb28181', {
        method: 'POST',
        body: new URLSearchParams({
            productId: String(products[0].productId),
            deviceName: 'gb_cam',
            password: 'gb_pass_1',
            confirmPassword: 'gb_pass_1',
        }),
    });
    const cam = ((await added.json()) as any).data;
    gbId = cam.gbId;
    deviceId = cam.deviceId;
    sip = await createSipServer({ db: server.db, port: 0, host: '127.0.0.1', keepaliveTimeoutMs: 800 });
    camera = createSocket('udp4');
    camera.on('message', (buf) => inbox.push(buf.toString()));
    await new Promise<void>((resolve) => camera.bind(0, '127.0.0.1', resolve));
});

afterAll(async () => {
    camera?.close();
    await sip?.close();
    await server?.close();
});

describe('a gb28181 camera at the SIP endpoint', () => {
    it('is refused with a wrong password', async () => {
        expect((await register('wrong_pass')).split('\r\n')[0]).toBe('SIP/2.0 403 Forbidden');
        expect((await get(`/api/video-device/get?id=${deviceId}`)).status).toBe('INACTIVE');
    });

    it('registers with the digest of its password, comes online, and is asked for its catalog', async () => {
        const catalogQuery = new Promise<string>((resolve) => {
            const timer = setInterval(() => {
                const q = inbox.find((m) => m.startsWith('MESSAGE ') && m.includes('<CmdType>Catalog</CmdType>'));
                if (q) {
                    clearInterval(timer);
                    resolve(q);
                }
            }, 20);
        });
        const ok = await register('gb_pass_1');
        expect(ok.split('\r\n')[0]).toBe('SIP/2.0 200 OK');
        const query = await catalogQuery;
        expect(query).toContain(`<DeviceID>${gbId}</DeviceID>`);
        const cam = await get(`/api/video-device/get?id=${deviceId}`);
        expect(cam.status).toBe('ONLINE');
        expect(cam.registerTime).not.toBeNull();

        const body = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<Response><CmdType>Catalog</CmdType><SN>1</SN>',
            `<DeviceID>${gbId}</DeviceID><SumNum>2</SumNum><DeviceList Num="2">`,
            '<Item><DeviceID>34020000001320000001</DeviceID><Name>Gate</Name><Manufacturer>Hikvision</Manufacturer><Model>DS-2CD</Model><Status>ON</Status></Item>',
            '<Item><DeviceID>34020000001320000002</DeviceID><Name>Yard</Name><Status>OFF</Status></Item>',
            '</DeviceList></Response>',
        ].join('\r\n');
        const answer = await exchange(request('MESSAGE', [], body), (m) => m.startsWith('SIP/2.0'));
        expect(answer.split('\r\n')[0]).toBe('SIP/2.0 200 OK');
        await expect
            .poll(async () => (await get(`/api/video-device/get?id=${deviceId}`)).channels)
            .toEqual([
                {
                    channelId: '34020000001320000001',
                    name: 'Gate',
                    manufacturer: 'Hikvision',
                    model: 'DS-2CD',
                    status: 'ON',
                },
                { channelId: '34020000001320000002', name: 'Yard', status: 'OFF' },
            ]);
    });

    it('stays online on keep-alives and goes offline when they stop', async () => {
        const keepalive = `<?xml version="1.0"?>\r\n<Notify><CmdType>Keepalive</CmdType><SN>2</SN><DeviceID>${gbId}</DeviceID><Status>OK</Status></Notify>`;
        for (let i = 0; i < 3; i++) {
            const answer = await exchange(request('MESSAGE', [], keepalive), (m) => m.startsWith('SIP/2.0'));
            expect(answer.split('\r\n')[0]).toBe('SIP/2.0 200 OK');
            await new Promise((r) => setTimeout(r, 300));
        }
        expect((await get(`/api/video-device/get?id=${deviceId}`)).status).toBe('ONLINE');
        await expect
            .poll(async () => (await get(`/api/video-device/get?id=${deviceId}`)).status, { timeout: 5000 })
            .toBe('OFFLINE');
    });

    it('answers 404 to a device it does not know', async () => {
        const saved = gbId;
        gbId = '34020000001329999999';
        const answer = await exchange(request('REGISTER', ['Expires: 3600']), (m) => m.startsWith('SIP/2.0'));
        gbId = saved;
        expect(answer.split('\r\n')[0]).toBe('SIP/2.0 404 Not Found');
    });
});
