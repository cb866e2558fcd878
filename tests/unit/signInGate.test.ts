import { Duplex } from 'node:stream';
import { expect, it } from 'vitest';
import { createRefusalLog, guardAmqp, guardMqtt } from '../../server/mqtt/packetLimit';
import { SignInGate } from '../../server/mqtt/signInGate';

/** Connections not yet signed in are counted until the server's CONNACK or SASL outcome OK goes out, or they close. */

const peer = (remoteAddress = '10.0.0.1') =>
    Object.assign(new Duplex({ read() {}, write: (_c, _e, cb) => cb() }), { remoteAddress }) as Duplex;

it('admits up to its caps, per address when asked, and counts each connection once', () => {
    const gate = new SignInGate({ total: 3, perAddress: 2 });
    const a = gate.admit('a')!;
    gate.admit('a');
    expect(gate.admit('a')).toBeUndefined();
    gate.admit('b');
    expect(gate.admit('c')).toBeUndefined();
    a();
    a();
    expect(gate.pending).toBe(2);
    expect(gate.admit('c')).toBeDefined();
});

it('closes an MQTT peer over the cap; an accepting CONNACK or a close frees its place', async () => {
    const log: string[] = [];
    const gate = new SignInGate({ total: 2 });
    const options = { maxPacket: 1024, refusal: createRefusalLog((l) => log.push(l)), listener: 'MQTT', gate };
    const first = peer();
    const second = peer();
    guardMqtt(first, options);
    guardMqtt(second, options);
    const third = peer();
    guardMqtt(third, options);
    expect(third.destroyed).toBe(true);
    expect(log[0]).toMatch(/未登录的连接过多/);
    first.write(Buffer.from([0x20, 0x02, 0x00, 0x05])); // refused: still counted until it closes
    expect(gate.pending).toBe(2);
    second.write(Buffer.from([0x20, 0x02]));
    second.write(Buffer.from([0x00, 0x00])); // accepted, written in pieces as mqtt-packet does
    expect(gate.pending).toBe(1);
    first.destroy();
    await new Promise((r) => setImmediate(r));
    expect(gate.pending).toBe(0);
});

it('counts an AMQP peer until the SASL outcome OK goes out', () => {
    const gate = new SignInGate({ total: 1 });
    const options = {
        maxFrame: 1024,
        refusal: createRefusalLog(() => undefined),
        listener: 'AMQP',
        handshakeTimeoutMs: 10_000,
        gate,
    };
    const consumer = peer();
    guardAmqp(consumer, options);
    expect(gate.pending).toBe(1);
    consumer.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]));
    // sasl-outcome { code: 0 }: size 16, doff 2, type 1, descriptor 0x00 0x53 0x44, list8 (size 3, count 1), ubyte 0.
    consumer.write(Buffer.from([0, 0, 0, 16, 2, 1, 0, 0, 0x00, 0x53, 0x44, 0xc0, 0x03, 0x01, 0x50, 0x00]));
    expect(gate.pending).toBe(0);
});
