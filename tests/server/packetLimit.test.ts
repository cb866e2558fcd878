import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { amqpScanner, MAX_CONNECT_BYTES, mqttScanner } from '../../server/mqtt/packetLimit';
import { createTestServer, type TestServer } from '../../server/testing';
import { until } from './mqttSupport';
import { postAndReply, startTlsPlatform, tlsLamp, type TlsPlatform } from './tlsSupport';

/**
 * Packet limits read from the headers, before a parser buffers the body: an unauthenticated peer announcing 250 MB
 * is closed from the header on every listener and the server's memory stays where it was; a device's packet just
 * over MQTT_MAX_PACKET_BYTES closes it, one just under is stored.
 */

const MB = 1024 * 1024;
/** An MQTT fixed header: type byte and the remaining length in 7-bit groups. */
function mqttHeader(type: number, length: number): Buffer {
    const bytes = [type];
    do {
        let b = length % 128;
        length = Math.floor(length / 128);
        if (length > 0) b |= 0x80;
        bytes.push(b);
    } while (length > 0);
    return Buffer.from(bytes);
}
const SASL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]);
function amqpFrameHeader(size: number): Buffer {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(size, 0);
    b[4] = 2;
    b[5] = 1;
    return b;
}

describe('header scanners', () => {
    it('passes MQTT packets up to the limits, split anywhere, and names each refusal', () => {
        const scan = mqttScanner(256 * 1024);
        const connect = Buffer.concat([mqttHeader(0x10, 100), Buffer.alloc(100)]);
        const publish = Buffer.concat([mqttHeader(0x30, 256 * 1024), Buffer.alloc(256 * 1024)]);
        const stream = Buffer.concat([connect, publish, mqttHeader(0xc0, 0)]);
        for (let i = 0; i < stream.length; i += 7) expect(scan(stream.subarray(i, i + 7))).toBeUndefined();
        expect(scan(mqttHeader(0x30, 256 * 1024 + 1))).toMatch(/超过上限 262144/);
        expect(mqttScanner(256 * 1024)(mqttHeader(0x10, MAX_CONNECT_BYTES + 1))).toMatch(/^CONNECT 报文声明长度 65537/);
        expect(mqttScanner(256 * 1024)(Buffer.from([0x16, 3, 1]))).toMatch(/TLS 握手/);
        expect(mqttScanner(256 * 1024)(Buffer.from('GET /'))).toMatch(/不是 CONNECT/);
        expect(mqttScanner(256 * 1024)(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01]))).toMatch(/格式错误/);
    });

    it('passes AMQP headers and frames up to the limit and refuses larger ones, SASL frames above 64 KB', () => {
        const scan = amqpScanner(256 * 1024);
        const frame = (n: number) => Buffer.concat([amqpFrameHeader(n), Buffer.alloc(n - 8)]);
        const amqpHeader = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0]);
        const stream = Buffer.concat([SASL_HEADER, frame(60), amqpHeader, frame(256 * 1024), frame(8)]);
        for (let i = 0; i < stream.length; i += 5) expect(scan(stream.subarray(i, i + 5))).toBeUndefined();
        expect(scan(amqpFrameHeader(256 * 1024 + 1))).toMatch(/超过上限/);
        const sasl = amqpScanner(256 * 1024);
        expect(sasl(Buffer.concat([SASL_HEADER, amqpFrameHeader(MAX_CONNECT_BYTES + 1)]))).toMatch(/超过上限 65536/);
        expect(amqpScanner(1024)(Buffer.from('GET / HTTP/1.1'))).toMatch(/不是 AMQP/);
    });
});

describe('on the listeners', () => {
    let s: TestServer;
    let p: TlsPlatform;
    const clients: MqttClient[] = [];
    const amqpLog: string[] = [];

    beforeAll(async () => {
        s = await createTestServer({ amqp: { pollMs: 100, log: (m) => amqpLog.push(m) } });
        p = await startTlsPlatform(s);
    });
    afterAll(async () => {
        for (const c of clients) c.end(true);
        await p?.close();
        await s?.close();
    });

    it('closes a device whose packet is just over MQTT_MAX_PACKET_BYTES and stores one just under', async () => {
        const limit = 256 * 1024;
        const lamp = await tlsLamp(s, `mqtts://localhost:${p.ports.mqtts}`, 2, { ca: p.ca });
        const client = await lamp.connect();
        clients.push(client);
        const { productKey, deviceName } = lamp.device;
        const reply = await postAndReply(client, productKey, deviceName, { LightSwitch: 1 }, limit);
        expect(reply.code).toBe(200);
        expect(client.connected).toBe(true);
        const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
        const over = postAndReply(client, productKey, deviceName, { LightSwitch: 0 }, limit + 1);
        over.catch(() => undefined);
        await closed;
        await until(() => p.log.some((l) => l.includes(`超过上限 ${limit} 字节`)));
    });

    /** 50 peers each announcing 250 MB and streaming it until closed; resolves once all are closed. */
    async function flood(open: () => Socket | WebSocket, header: Buffer) {
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        await Promise.all(
            Array.from(
                { length: 50 },
                () =>
                    new Promise<void>((resolve) => {
                        const peer = open();
                        const send = (b: Buffer) =>
                            peer instanceof WebSocket ? peer.send(b, () => undefined) : peer.write(b);
                        let sent = 0;
                        const pump = () => {
                            // Up to 4 MB each (200 MB in all) unless closed first.
                            while (
                                sent < 4 * MB &&
                                (peer instanceof WebSocket ? peer.readyState === 1 : !peer.destroyed)
                            ) {
                                sent += chunk.length;
                                send(chunk);
                            }
                        };
                        const start = () => {
                            send(header);
                            setImmediate(pump);
                        };
                        if (peer instanceof WebSocket) {
                            peer.on('open', start);
                            peer.on('error', () => undefined);
                            peer.on('close', () => resolve());
                        } else {
                            peer.on(peer.constructor.name === 'TLSSocket' ? 'secureConnect' : 'connect', start);
                            peer.on('error', () => undefined);
                            peer.on('close', () => resolve());
                        }
                    }),
            ),
        );
    }

    it('closes 50 peers announcing 250 MB on every listener from the header; memory stays within 50 MB', async () => {
        const connectHeader = mqttHeader(0x10, 250 * MB);
        const amqp = Buffer.concat([SASL_HEADER, amqpFrameHeader(250 * MB)]);
        const tls = (port: number) => tlsConnect({ port, host: '127.0.0.1', servername: 'localhost', ca: p.ca });
        const ws = (url: string) => new WebSocket(url, 'mqtt', { ca: p.ca });
        const runs: Array<[string, () => Socket | WebSocket, Buffer]> = [
            ['MQTT', () => netConnect(p.ports.mqtt, '127.0.0.1'), connectHeader],
            ['MQTTS', () => tls(p.ports.mqtts), connectHeader],
            ['WebSocket', () => ws(`ws://127.0.0.1:${p.ports.http}/mqtt`), connectHeader],
            ['WSS', () => ws(`wss://localhost:${p.ports.https}/mqtt`), connectHeader],
            ['AMQP', () => netConnect(p.ports.amqp, '127.0.0.1'), amqp],
            ['AMQPS', () => tls(p.ports.amqps), amqp],
        ];
        // Warm each path once (TLS contexts, ws) so their one-time allocations are not counted.
        for (const [, open, header] of runs) await flood(() => open(), header);
        global.gc?.();
        const before = process.memoryUsage().rss;
        for (const [name, open, header] of runs) {
            await flood(open, header);
            const grown = (process.memoryUsage().rss - before) / MB;
            expect(grown, `${name}: RSS grew ${grown.toFixed(1)} MB`).toBeLessThan(50);
        }
        // Logged once per listener and address, not per connection (100 on each above).
        for (const name of ['MQTT', 'MQTTS', 'MQTT over WebSocket', 'MQTT over WSS', 'AMQP', 'AMQPS']) {
            const lines = [...p.log, ...amqpLog].filter((l) => l.startsWith(`${name} 关闭来自 127.0.0.1`));
            expect(lines, name).toHaveLength(1);
        }
    }, 180_000);
});
