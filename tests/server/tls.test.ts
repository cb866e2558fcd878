import { request } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { loadTls, makeCertificates } from '../../server/tls/certificates';
import { consume, createAccessKey, subscribeLamp } from './amqpSupport';
import { until } from './mqttSupport';
import { postAndReply, startTlsPlatform, tlsLamp, tmpDir, type TlsPlatform } from './tlsSupport';

/**
 * Devices and consumers over TLS, through the listeners the real start-up opens (server/tls/listeners.ts): MQTTS,
 * MQTT over WebSocket on HTTPS, AMQPS and the API on HTTPS, with the generated CA and with given certificate files;
 * Alibaba's securemode=2 refused over plain TCP; renewal while a device stays connected; bad connections closed.
 */

const HANDSHAKE_MS = 800;
const clients: MqttClient[] = [];
const track = (c: MqttClient) => (clients.push(c), c);

/** GET over HTTPS trusting `ca`: status and body. */
function httpsGet(
    port: number,
    target: string,
    ca: string,
): Promise<{ status: number; body: string; protocol: string }> {
    return new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', servername: 'localhost', port, path: target, ca }, (res) => {
            const protocol = (res.socket as unknown as { getProtocol(): string }).getProtocol();
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body, protocol }));
        });
        req.on('error', reject);
        req.end();
    });
}

/** Opens a raw TCP connection, writes `bytes` (if any) and resolves with ms until the server closed it. */
function closedAfter(port: number, bytes?: Buffer, timeoutMs = 5_000): Promise<number> {
    return new Promise((resolve, reject) => {
        const started = Date.now();
        const socket = netConnect(port, '127.0.0.1', () => bytes && socket.write(bytes));
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        const timer = setTimeout(() => {
            socket.destroy();
            reject(new Error(`port ${port} still open after ${timeoutMs} ms`));
        }, timeoutMs);
        socket.on('close', () => {
            clearTimeout(timer);
            resolve(Date.now() - started);
        });
    });
}

describe.each([
    ['the generated CA', false],
    ['a given certificate', true],
])('TLS with %s', (_name, given) => {
    let s: TestServer;
    let p: TlsPlatform;

    beforeAll(async () => {
        s = await createTestServer({ amqp: { pollMs: 100, handshakeTimeoutMs: HANDSHAKE_MS } });
        p = await startTlsPlatform(s, { given, connectTimeoutMs: HANDSHAKE_MS });
    });
    afterAll(async () => {
        for (const c of clients.splice(0)) c.end(true);
        await p?.close();
        await s?.close();
    });

    it('MQTTS: a securemode=2 device signs in and its property post is answered', async () => {
        const lamp = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
        const client = track(await lamp.connect());
        const reply = await postAndReply(client, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 1 });
        expect(reply.code).toBe(200);
    });

    it('WSS on the HTTPS port: a securemode=2 device signs in and posts', async () => {
        const lamp = await tlsLamp(s, `wss://localhost:${p.ports.https}/mqtt`, 2, { ca: p.ca });
        const client = track(await lamp.connect());
        const reply = await postAndReply(client, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 0 });
        expect(reply.code).toBe(200);
    });

    it('HTTPS serves the API (TLS 1.2 or 1.3) and refuses TLS 1.1', async () => {
        const answer = await httpsGet(p.ports.https, '/api/platform/info', p.ca);
        expect(answer.status).toBe(401); // the same app: every API path needs a sign-in
        expect(['TLSv1.2', 'TLSv1.3']).toContain(answer.protocol);
        const old = await new Promise<string>((resolve) => {
            const socket = tlsConnect({ port: p.ports.https, host: '127.0.0.1', ca: p.ca, maxVersion: 'TLSv1.1' });
            socket.on('secureConnect', () => resolve('connected'));
            socket.on('error', (err) => resolve(err.message));
        });
        expect(old).not.toBe('connected');
    });

    it('AMQPS: a consumer receives a device post', async () => {
        const key = await createAccessKey(s);
        const { groupId } = await subscribeLamp(s);
        const consumer = await consume(p.ports.amqps, {
            ...key,
            groupId,
            connection: { transport: 'tls', ca: p.ca, servername: 'localhost', host: 'localhost' },
        });
        try {
            const lamp = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
            const client = track(await lamp.connect());
            const next = consumer.next(1);
            await postAndReply(client, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 1 });
            const [m] = await next;
            expect(m.properties.topic).toBe(
                `/sys/${lamp.device.productKey}/${lamp.device.deviceName}/thing/event/property/post`,
            );
        } finally {
            await consumer.close();
        }
    });

    it('refuses securemode=2 over plain TCP with CONNACK 5 and says why; securemode=3 signs in on both', async () => {
        const plain2 = await tlsLamp(s, `mqtt://127.0.0.1:${p.ports.mqtt}`, 2);
        await expect(plain2.connect()).rejects.toMatchObject({ code: 5 });
        expect(p.log.join('\n')).toMatch(/securemode=2 要求 TLS.*明文端口/);
        const ws2 = await tlsLamp(s, `ws://127.0.0.1:${p.ports.http}/mqtt`, 2);
        await expect(ws2.connect()).rejects.toMatchObject({ code: 5 });
        const plain3 = await tlsLamp(s, `mqtt://127.0.0.1:${p.ports.mqtt}`, 3);
        track(await plain3.connect());
        const tls3 = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 3, { ca: p.ca });
        track(await tls3.connect());
    });

    it('closes bad connections cleanly, each with a line, while a device stays connected', async () => {
        const lamp = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
        const bystander = track(await lamp.connect());
        // A plaintext MQTT CONNECT on the TLS port.
        const connect = Buffer.from('101000044d5154540402003c0004616263', 'hex');
        await closedAfter(p.ports.mqtts, connect);
        // A TLS client on the plain port: the first byte is a TLS record, not a CONNECT.
        const tlsOnPlain = await new Promise<string>((resolve) => {
            const socket = tlsConnect({ port: p.ports.mqtt, host: '127.0.0.1', ca: p.ca });
            socket.on('secureConnect', () => resolve('connected'));
            socket.on('error', () => resolve('closed'));
            socket.on('close', () => resolve('closed'));
        });
        expect(tlsOnPlain).toBe('closed');
        await until(() => p.log.some((l) => l.includes('收到的是 TLS 握手')));
        // Garbage on the plain MQTT and AMQP ports.
        await closedAfter(p.ports.mqtt, Buffer.from('GET / HTTP/1.1\r\n\r\n'));
        await closedAfter(p.ports.amqp, Buffer.from('GET / HTTP/1.1\r\n\r\n'));
        // A handshake that stalls: closed after the (shortened) handshake timeout, on every TLS port.
        for (const name of ['mqtts', 'amqps', 'https', 'mqtt', 'amqp'] as const) {
            const ms = await closedAfter(p.ports[name], undefined, HANDSHAKE_MS * 5).catch(() => -1);
            expect(ms, name).toBeGreaterThanOrEqual(HANDSHAKE_MS - 50);
        }
        expect(p.log.some((l) => l.startsWith('MQTTS 关闭来自 127.0.0.1 的连接：TLS 握手失败'))).toBe(true);
        expect(bystander.connected).toBe(true);
        const reply = await postAndReply(bystander, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 1 });
        expect(reply.code).toBe(200);
    });

    it('takes a replaced certificate at the next handshake and keeps the connected device', async () => {
        const lamp = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
        const kept = track(await lamp.connect());
        const next = await makeCertificates({ dns: ['localhost'], ip: ['127.0.0.1'] });
        const { certFile, keyFile } = p.material;
        writeFileSync(keyFile, next.keyPem);
        writeFileSync(certFile, next.certPem + next.caPem);
        if (p.material.generated) writeFileSync(p.material.caFile!, next.caPem);
        // The directory watch picks it up (SIGHUP or reload() does the same at once).
        await until(() => p.listeners.watcher.current.cert !== p.material.cert, 5_000);
        const again = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
        await expect(again.connect()).rejects.toThrow(/certificate/i);
        const renewed = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: next.caPem });
        track(await renewed.connect());
        const https = await httpsGet(p.ports.https, '/api/platform/info', next.caPem);
        expect(https.status).toBe(401);
        expect(kept.connected).toBe(true);
        const reply = await postAndReply(kept, lamp.device.productKey, lamp.device.deviceName, { LightSwitch: 0 });
        expect(reply.code).toBe(200);
    });
});

describe('/api/platform/info and the CA download', () => {
    it('tell the TLS endpoints, the fingerprint and serve the CA behind the sign-in', async () => {
        const dir = tmpDir('tls-info-');
        const material = await loadTls({ dataDir: dir, certFile: undefined, keyFile: undefined });
        const s = await createTestServer({
            seed: false,
            config: {
                tls: true,
                tlsCaFile: material.caFile,
                tlsFingerprint: material.fingerprint,
                mqttsPort: 18883,
                httpsPort: 18443,
                amqpsPort: 15671,
                unboundListeners: ['amqps'],
            },
        });
        try {
            const info = (await (await s.fetch('/api/platform/info')).json()) as { data: Record<string, unknown> };
            expect(info.data).toMatchObject({
                mqttsUrl: 'mqtts://localhost:18883',
                mqttWssUrl: 'wss://localhost:18443/mqtt',
                httpsUrl: 'https://localhost:18443/',
                amqpsUrl: null, // its port was taken: not advertised
                tlsFingerprint: new X509Certificate(readFileSync(material.caFile!)).fingerprint256,
                caCertificate: '/api/platform/ca.pem',
                tlsOnly: false,
            });
            const ca = await s.fetch('/api/platform/ca.pem');
            expect(ca.status).toBe(200);
            expect(ca.headers.get('content-disposition')).toContain('attachment');
            expect(await ca.text()).toBe(readFileSync(material.caFile!, 'utf8'));
            expect((await s.anonFetch('/api/platform/ca.pem')).status).toBe(401);
        } finally {
            await s.close();
        }
        const off = await createTestServer({ seed: false, config: { tls: false } });
        try {
            const info = (await (await off.fetch('/api/platform/info')).json()) as { data: Record<string, unknown> };
            expect(info.data).toMatchObject({ mqttsUrl: null, amqpsUrl: null, httpsUrl: null, caCertificate: null });
            const ca = await off.fetch('/api/platform/ca.pem');
            expect(ca.status).toBe(404);
            expect(((await ca.json()) as { msg: string }).msg).toContain('TLS 未开启');
        } finally {
            await off.close();
        }
    });
});
