import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AmqpFraming } from '../../server/mqtt/amqpFraming';
import { MAX_CONNECT_BYTES, MqttFraming } from '../../server/mqtt/mqttFraming';
import { createTestServer, type TestServer } from '../../server/testing';
import { AMQP_HEADER, SASL_HEADER, saslInit } from './fuzzSupport';
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
/** A frame header: size, data offset 2 (8 bytes), type (1 SASL, 0 AMQP). */
function amqpFrameHeader(size: number, type = 1): Buffer {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(size, 0);
    b[4] = 2;
    b[5] = type;
    return b;
}

describe('header scanners', () => {
    const mqttScan = (maxPacket: number) => {
        const framing = new MqttFraming({ maxPacket });
        return (chunk: Buffer) => framing.scan(chunk);
    };

    it('passes MQTT packets up to the limits, split anywhere, and names each refusal', () => {
        const framing = new MqttFraming({ maxPacket: 256 * 1024 });
        const connect = Buffer.concat([mqttHeader(0x10, 100), Buffer.alloc(100)]);
        const publish = Buffer.concat([mqttHeader(0x30, 256 * 1024), Buffer.alloc(256 * 1024)]);
        for (let i = 0; i < connect.length; i += 7) expect(framing.scan(connect.subarray(i, i + 7))).toBeUndefined();
        framing.connack(true);
        const stream = Buffer.concat([publish, mqttHeader(0xc0, 0)]);
        for (let i = 0; i < stream.length; i += 7) expect(framing.scan(stream.subarray(i, i + 7))).toBeUndefined();
        expect(framing.scan(mqttHeader(0x30, 256 * 1024 + 1))).toMatch(/超过上限 262144/);
        expect(mqttScan(256 * 1024)(mqttHeader(0x10, MAX_CONNECT_BYTES + 1))).toMatch(/^CONNECT 报文声明长度 65537/);
        expect(mqttScan(256 * 1024)(Buffer.from([0x16, 3, 1]))).toMatch(/TLS 握手/);
        expect(mqttScan(256 * 1024)(Buffer.from('GET /'))).toMatch(/不是 CONNECT/);
        // mqtt-packet refuses a length whose 4th byte still continues: so does the scanner, at that byte.
        expect(mqttScan(256 * 1024)(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff]))).toMatch(/格式错误/);
    });

    it('holds a peer to 64 KB after its CONNECT until the CONNACK, and refuses headers mqtt-packet refuses', () => {
        const framing = new MqttFraming({ maxPacket: 256 * 1024 });
        expect(framing.scan(Buffer.concat([mqttHeader(0x10, 10), Buffer.alloc(10)]))).toBeUndefined();
        const publish = Buffer.concat([mqttHeader(0x30, 40 * 1024), Buffer.alloc(40 * 1024)]);
        expect(framing.scan(publish)).toBeUndefined();
        expect(framing.scan(publish)).toMatch(/登录完成前发送的报文超过 65536 字节/);
        const signedIn = () => {
            const f = new MqttFraming({ maxPacket: 1024 });
            f.scan(Buffer.concat([mqttHeader(0x10, 10), Buffer.alloc(10)]));
            f.connack(true);
            return f;
        };
        expect(signedIn().scan(Buffer.from([0x00, 0x00]))).toMatch(/保留类型/);
        expect(signedIn().scan(Buffer.from([0x80, 0x00]))).toMatch(/标志位错误/);
        expect(signedIn().scan(Buffer.from([0x36, 0x00]))).toMatch(/QoS 不能为 3/);
        expect(signedIn().scan(Buffer.from([0x11, 0x00]))).toMatch(/标志位错误/);
    });

    it('passes AMQP headers and frames up to the limit and refuses larger ones, SASL frames above 64 KB', () => {
        const framing = new AmqpFraming({ maxFrame: 256 * 1024 });
        const frame = (n: number, type = 1) => Buffer.concat([amqpFrameHeader(n, type), Buffer.alloc(n - 8)]);
        const sasl = Buffer.concat([SASL_HEADER, frame(60)]);
        for (let i = 0; i < sasl.length; i += 5) expect(framing.scan(sasl.subarray(i, i + 5))).toBeUndefined();
        framing.saslOutcome(true);
        const stream = Buffer.concat([AMQP_HEADER, frame(256 * 1024, 0), frame(8, 0)]);
        for (let i = 0; i < stream.length; i += 5) expect(framing.scan(stream.subarray(i, i + 5))).toBeUndefined();
        expect(framing.scan(amqpFrameHeader(256 * 1024 + 1, 0))).toMatch(/超过上限/);
        const saslOnly = new AmqpFraming({ maxFrame: 256 * 1024 });
        expect(saslOnly.scan(Buffer.concat([SASL_HEADER, amqpFrameHeader(MAX_CONNECT_BYTES + 1)]))).toMatch(
            /超过上限 65536/,
        );
        expect(new AmqpFraming({ maxFrame: 1024 }).scan(Buffer.from('GET / HTTP/1.1'))).toMatch(/不是 AMQP/);
    });

    it('reads an AMQP header before the SASL outcome as rhea does: a frame of 1.09 GB', () => {
        const framing = new AmqpFraming({ maxFrame: 256 * 1024 });
        expect(framing.scan(Buffer.concat([SASL_HEADER, AMQP_HEADER]))).toMatch(/帧声明长度 1095586128 字节/);
        // A SASL header where the AMQP one belongs, and an AMQP header first, are refused as rhea refuses them.
        const after = new AmqpFraming({ maxFrame: 256 * 1024 });
        after.scan(SASL_HEADER);
        after.saslOutcome(true);
        expect(after.scan(SASL_HEADER)).toMatch(/协议号 3/);
        expect(new AmqpFraming({ maxFrame: 1024 }).scan(AMQP_HEADER)).toMatch(/需要先进行 SASL 登录/);
    });
});

/** How many times `needle` occurs in `haystack`. */
function countOf(haystack: Buffer, needle: Buffer): number {
    let n = 0;
    for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) n++;
    return n;
}

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

    /**
     * Four peers send the SASL protocol header, then a second `AMQP` header where a SASL frame belongs (rhea reads it
     * as a frame of 0x414D5150 = 1.09 GB), then well-formed 16 KB frames for up to 5 s (64 MB each, with back-pressure).
     * Resolves with the bytes each peer wrote, whether the server closed it (not the peer giving up) and the largest
     * RSS growth seen meanwhile.
     */
    async function headerInFrame(open: () => Socket) {
        const frame = Buffer.concat([amqpFrameHeader(16 * 1024), Buffer.alloc(16 * 1024 - 8)]);
        const frames = Buffer.concat(Array.from({ length: 16 }, () => frame));
        const before = process.memoryUsage().rss;
        let peak = 0;
        const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - before)), 50);
        const peers = await Promise.all(
            Array.from(
                { length: 4 },
                () =>
                    new Promise<{ sent: number; closedByServer: boolean }>((resolve) => {
                        const peer = open();
                        let sent = 0;
                        let gaveUp = false;
                        const until = Date.now() + 5_000;
                        const pump = () => {
                            while (!peer.destroyed && sent < 64 * MB && Date.now() < until) {
                                sent += frames.length;
                                if (!peer.write(frames)) return void peer.once('drain', pump);
                            }
                            gaveUp = true;
                            peer.destroy();
                        };
                        peer.on(peer.constructor.name === 'TLSSocket' ? 'secureConnect' : 'connect', () => {
                            peer.write(Buffer.concat([SASL_HEADER, AMQP_HEADER]));
                            setImmediate(pump);
                        });
                        peer.on('error', () => undefined);
                        peer.on('close', () => resolve({ sent, closedByServer: !gaveUp }));
                    }),
            ),
        );
        clearInterval(sample);
        return { peers, peakMB: Math.max(peak, process.memoryUsage().rss - before) / MB };
    }

    it('refuses an AMQP header where rhea reads a SASL frame, on AMQP and AMQPS; memory stays within 50 MB', async () => {
        const runs: Array<[string, () => Socket]> = [
            ['AMQP', () => netConnect(p.ports.amqp, '127.0.0.1')],
            ['AMQPS', () => tlsConnect({ port: p.ports.amqps, host: '127.0.0.1', servername: 'localhost', ca: p.ca })],
        ];
        global.gc?.();
        for (const [name, open] of runs) {
            const { peers, peakMB } = await headerInFrame(open);
            console.log(
                `${name}: RSS peak +${peakMB.toFixed(1)} MB, written before the close: ${peers.map((x) => x.sent)}`,
            );
            expect(peakMB, `${name}: RSS grew ${peakMB.toFixed(1)} MB while the peers streamed`).toBeLessThan(50);
            for (const { sent, closedByServer } of peers) {
                expect(closedByServer, `${name}: a peer wrote ${sent} bytes and was not closed`).toBe(true);
            }
        }
        await until(() => amqpLog.some((l) => /AMQPS? 关闭来自 127\.0\.0\.1.*1095586128/.test(l)));
    }, 60_000);

    it('ends an AMQP connection after a refused sign-in: one guess per connection', async () => {
        const peer = netConnect(p.ports.amqp, '127.0.0.1');
        peer.on('error', () => undefined);
        const received: Buffer[] = [];
        peer.on('data', (d: Buffer) => received.push(d));
        const closed = new Promise<number>((r) => peer.once('close', () => r(Date.now())));
        await new Promise((r) => peer.once('connect', r));
        const started = Date.now();
        peer.write(Buffer.concat([SASL_HEADER, saslInit('nobody|authMode=aksign|', 'wrong')]));
        // A second guess on the same connection, as a password guesser would send.
        setTimeout(() => !peer.destroyed && peer.write(saslInit('nobody|authMode=aksign|', 'wrong-again')), 200);
        const at = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(0), 5_000))]);
        expect(at, 'closed by the server after its refusal').toBeGreaterThan(0);
        expect(at - started).toBeLessThan(2_000);
        // One sasl-outcome in what came back (its descriptor 0x00 0x53 0x44), with code 1 (auth).
        const bytes = Buffer.concat(received);
        const outcomes = countOf(bytes, Buffer.from([0x00, 0x53, 0x44]));
        expect(outcomes).toBe(1);
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
