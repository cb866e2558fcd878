import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import os from 'node:os';
import path from 'node:path';
import type { IClientOptions, MqttClient } from 'mqtt';
import { loadConfig } from '../../server/config';
import { createBroker } from '../../server/mqtt/broker';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import type { TestServer } from '../../server/testing';
import { loadTls, makeCertificates, type TlsMaterial } from '../../server/tls/certificates';
import { startTlsListeners } from '../../server/tls/listeners';
import { connect, secretOf } from './mqttSupport';
import { freshLamp } from './telemetrySupport';

/**
 * A test server's broker and AMQP service behind every listener the real start-up opens: plain MQTT and AMQP, and the
 * TLS ones through server/tls/listeners.ts (HTTPS with /mqtt, MQTTS, AMQPS) on free ports, with either the generated
 * CA (`given` false) or certificate files made here as an operator would bring them.
 */

export function tmpDir(prefix: string) {
    return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A CA and a server certificate for localhost written as PEM files (an operator's own certificate). */
export async function givenFiles(dir: string, now = new Date()) {
    const made = await makeCertificates({ dns: ['localhost'], ip: ['127.0.0.1'] }, now);
    const certFile = path.join(dir, 'given.pem');
    const keyFile = path.join(dir, 'given-key.pem');
    writeFileSync(certFile, made.certPem);
    writeFileSync(keyFile, made.keyPem);
    return { certFile, keyFile, ca: made.caPem, made };
}

export interface TlsPlatform {
    material: TlsMaterial;
    /** The PEM devices trust. */
    ca: string;
    ports: { http: number; mqtt: number; amqp: number; https: number; mqtts: number; amqps: number };
    log: string[];
    broker: Awaited<ReturnType<typeof createBroker>>;
    listeners: Awaited<ReturnType<typeof startTlsListeners>>;
    close(): Promise<void>;
}

export async function startTlsPlatform(
    s: TestServer,
    opts: { given?: boolean; connectTimeoutMs?: number; maxPacketBytes?: number } = {},
): Promise<TlsPlatform> {
    const dir = tmpDir('tls-test-');
    const given = opts.given ? await givenFiles(dir) : undefined;
    const material = await loadTls({ dataDir: dir, certFile: given?.certFile, keyFile: given?.keyFile });
    const log: string[] = [];
    const broker = await createBroker({
        db: s.db,
        log: (m) => log.push(m),
        connectTimeoutMs: opts.connectTimeoutMs,
        maxPacketBytes: opts.maxPacketBytes,
    });
    s.access.attach(broker);
    s.amqp.attach(broker);
    const config = loadConfig({ HOST: '127.0.0.1', HTTPS_PORT: '0', MQTTS_PORT: '0', AMQPS_PORT: '0', DATA_DIR: dir });
    config.handshakeTimeoutMs = opts.connectTimeoutMs ?? config.handshakeTimeoutMs;
    const mqtt = await broker.listen(0, '127.0.0.1');
    const amqp = await s.amqp.listen(0, '127.0.0.1');
    // Plain HTTP with /mqtt, as index.ts serves it beside HTTPS.
    const http = createAdaptorServer({ fetch: s.app.fetch }) as Server;
    broker.attachWebSocket(http);
    const httpPort = await new Promise<number>((resolve) =>
        http.listen(0, '127.0.0.1', () => resolve((http.address() as AddressInfo).port)),
    );
    const listeners = await startTlsListeners({
        config,
        material,
        fetch: s.app.fetch,
        broker,
        amqp: s.amqp,
        shownHost: 'localhost',
    });
    return {
        material,
        ca: given ? given.ca : material.caPem!,
        ports: {
            http: httpPort,
            mqtt,
            amqp,
            https: config.httpsPort,
            mqtts: config.mqttsPort,
            amqps: config.amqpsPort,
        },
        log,
        broker,
        listeners,
        async close() {
            listeners.watcher.close();
            listeners.https.closeAllConnections();
            listeners.https.close();
            http.closeAllConnections();
            http.close();
            await broker.close();
        },
    };
}

/** A lamp device signed in with Alibaba's scheme (securemode 2 or 3) over `url` with `options` (ca, …). */
export async function tlsLamp(s: TestServer, url: string, securemode: 2 | 3, options: IClientOptions = {}) {
    const device = await freshLamp(s);
    const secret = await secretOf(s, Number(device.deviceId));
    const creds = alibabaCredentials(
        { productKey: device.productKey, deviceName: device.deviceName, secret },
        { securemode },
    );
    return { device, creds, connect: () => connect(url, { ...creds, ...options }) };
}

/** Posts a property and resolves on the platform's reply (the post was accepted and stored). */
export async function postAndReply(
    client: MqttClient,
    productKey: string,
    deviceName: string,
    params: object,
    /** Pad the payload (a root field the platform ignores) so the packet's remaining length is exactly this. */
    remainingLength?: number,
) {
    const topic = `/sys/${productKey}/${deviceName}/thing/event/property/post`;
    await client.subscribeAsync(`${topic}_reply`, { qos: 1 });
    const id = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
    const replied = new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no reply')), 5_000);
        client.on('message', (t, p) => {
            const body = JSON.parse(p.toString()) as Record<string, unknown>;
            if (t === `${topic}_reply` && body.id === id) {
                clearTimeout(timer);
                resolve(body);
            }
        });
    });
    replied.catch(() => undefined); // a publish that fails first leaves the reply unawaited
    const message = { id, version: '1.0', params, method: 'thing.event.property.post', pad: '' };
    if (remainingLength !== undefined) {
        // Remaining length of a QoS 1 PUBLISH: 2-byte topic length, the topic, 2-byte packet id, the payload.
        const room = remainingLength - (2 + Buffer.byteLength(topic) + 2) - Buffer.byteLength(JSON.stringify(message));
        message.pad = 'x'.repeat(room);
    }
    await client.publishAsync(topic, JSON.stringify(message), { qos: 1 });
    return replied;
}
