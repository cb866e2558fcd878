import { EventEmitter } from 'node:events';
import type { MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import type { AccessHub } from '../../server/mqtt/access';
import type { ThingFunction, ThingModelIndex } from '../../server/mqtt/directory';
import { answer, countSent, parseRequest, postProperties, publish } from '../../server/simulation/messages';
import {
    checkDownload,
    install,
    otaMessage,
    upgradeData,
    type SimOtaDevice,
    type SimOtaState,
} from '../../server/simulation/ota';
import { firstReport, tickDevice } from '../../server/simulation/schedule';
import { release } from '../../server/simulation/sessions';
import { createSimulatorState, type Running, type SimDevice } from '../../server/simulation/state';

/**
 * The simulator's steps without a broker or a database: a fake MQTT client records what a device publishes, a fake
 * directory answers the thing model. tests/server/simulation.test.ts and simulationOta.test.ts run them for real.
 */

const int = { type: 'int', specs: { min: '0', max: '10' } };
const fn = (type: ThingFunction['type'], identifier: string, extra: Partial<ThingFunction> = {}): ThingFunction => ({
    type,
    identifier,
    dataType: type === 'property' ? (int as ThingFunction['dataType']) : null,
    accessMode: 'rw',
    inputData: [],
    outputData: [],
    callType: null,
    ...extra,
});
const model: ThingModelIndex = {
    properties: new Map([['temp', fn('property', 'temp')]]),
    events: new Map([
        ['alarm', fn('event', 'alarm', { outputData: [{ identifier: 'level', dataType: int as never }] })],
    ]),
    services: new Map([
        ['reboot', fn('service', 'reboot', { outputData: [{ identifier: 'code', dataType: int as never }] })],
    ]),
};

/** A connected client that records its publishes. */
function fakeClient() {
    const sent: Array<{ topic: string; body: Record<string, unknown> }> = [];
    const client = Object.assign(new EventEmitter(), {
        connected: true,
        ended: 0,
        publish(topic: string, payload: string, _opts: unknown, cb?: (err?: Error) => void) {
            sent.push({ topic, body: JSON.parse(payload) as Record<string, unknown> });
            cb?.();
        },
        endAsync() {
            client.ended++;
            return Promise.resolve();
        },
    });
    return { client, sent };
}

function setup() {
    const stopped: number[] = [];
    const state = createSimulatorState(
        {} as Db,
        { running: true } as AccessHub,
        () => undefined,
        () => ({
            topics: () => [],
            connected: () => Promise.resolve(),
            message: () => false,
            stop: (d: SimOtaDevice) => void stopped.push(d.deviceId),
        }),
    );
    state.directory = { model: () => Promise.resolve(model) } as unknown as typeof state.directory;
    const { client, sent } = fakeClient();
    const device: SimDevice = {
        deviceId: 7,
        productId: 1,
        productKey: 'PkSteps',
        deviceName: 'dev7',
        secret: 's',
        owners: new Set([1, 'manual']),
        sent: 0,
        nextId: 1,
        client: client as unknown as MqttClient,
    };
    state.live.set(7, device);
    const sim: Running = {
        id: 1,
        deviceIds: [7],
        intervalMs: 1000,
        mode: 'fixed',
        fixed: { temp: 5 },
        events: true,
        unflushed: 0,
        startedAt: 0,
    };
    state.running.set(1, sim);
    return { state, device, sim, client, sent, stopped };
}

describe('messages', () => {
    it('parseRequest reads id and params leniently, and refuses what is not a JSON object', () => {
        expect(parseRequest(Buffer.from('{"id":12,"params":{"a":1}}'))).toEqual({ id: '12', params: { a: 1 } });
        expect(parseRequest(Buffer.from('{"params":[1]}'))).toEqual({ id: '', params: {} });
        expect(parseRequest(Buffer.from('null'))).toBeUndefined();
        expect(parseRequest(Buffer.from('{'))).toBeUndefined();
    });

    it('publish counts for the device and the simulations holding it; nothing when not connected', () => {
        const { state, device, sim, client, sent } = setup();
        expect(postProperties(state, device, { temp: 3 })).toBe(true);
        expect(sent[0]).toMatchObject({
            topic: '/sys/PkSteps/dev7/thing/event/property/post',
            body: { id: '1', params: { temp: 3 }, method: 'thing.event.property.post' },
        });
        countSent(state, device);
        expect([device.sent, sim.unflushed]).toEqual([2, 2]);
        client.connected = false;
        expect(publish(state, device, '/x', {})).toBe(false);
        expect(sent).toHaveLength(1);
    });

    it('answers a property set with code 200 and posts the values back; a service call with its outputs', async () => {
        const { state, device, sent } = setup();
        await answer(
            state,
            device,
            '/sys/PkSteps/dev7/thing/service/property/set',
            Buffer.from('{"id":"9","params":{"temp":4}}'),
        );
        expect(sent.map((m) => m.topic)).toEqual([
            '/sys/PkSteps/dev7/thing/service/property/set_reply',
            '/sys/PkSteps/dev7/thing/event/property/post',
        ]);
        expect(sent[0].body).toMatchObject({ id: '9', code: 200, data: {}, method: 'thing.service.property.set' });
        expect(sent[1].body.params).toEqual({ temp: 4 });
        await answer(state, device, '/sys/PkSteps/dev7/thing/service/reboot', Buffer.from('{"id":"10"}'));
        expect(sent[2].body).toMatchObject({ id: '10', code: 200, method: 'thing.service.reboot' });
        expect(typeof (sent[2].body.data as { code: unknown }).code).toBe('number');
        await answer(state, device, '/sys/PkSteps/dev7/thing/service/reboot_reply', Buffer.from('{}'));
        expect(sent).toHaveLength(3);
    });
});

describe('schedule and sessions', () => {
    it('tickDevice posts the fixed values and an event; firstReport reports for each simulation holding it', async () => {
        const { state, device, sim, sent } = setup();
        await tickDevice(state, sim, device);
        expect(sent[0].body.params).toEqual({ temp: 5 });
        expect(sent[1].topic).toBe('/sys/PkSteps/dev7/thing/event/alarm/post');
        firstReport(state, device);
        await new Promise((r) => setTimeout(r, 10));
        expect(sent).toHaveLength(4);
    });

    it('release ends the session only when its last owner lets go, and stops its OTA', async () => {
        const { state, client, stopped } = setup();
        await release(state, 7, 1);
        expect([state.live.has(7), client.ended, stopped]).toEqual([true, 0, []]);
        await release(state, 7, 'manual');
        expect([state.live.has(7), client.ended, stopped]).toEqual([false, 1, [7]]);
    });
});

describe('simulated OTA', () => {
    const push = (data: Record<string, unknown>) => Buffer.from(JSON.stringify({ code: '1000', data, id: 1 }));
    const good = {
        url: 'http://127.0.0.1:1/api/ota/download?x',
        version: '2.0.0',
        signMethod: 'md5',
        sign: 'AB'.repeat(16),
        size: 4,
    };

    it('upgradeData takes a well-formed push and refuses a bad URL, version or sign method', () => {
        expect(upgradeData(push(good))).toMatchObject({ module: 'default', signMethod: 'MD5', sign: 'ab'.repeat(16) });
        expect(upgradeData(push({ ...good, url: 'ftp://x' }))).toBeUndefined();
        expect(upgradeData(push({ ...good, version: 'a b' }))).toBeUndefined();
        expect(upgradeData(push({ ...good, signMethod: 'CRC' }))).toBeUndefined();
        expect(upgradeData(Buffer.from('{}'))).toBeUndefined();
    });

    it('checkDownload names a size, then a sign mismatch', () => {
        const task = upgradeData(push(good))!;
        expect(checkDownload(task, { sign: task.sign, received: 4 })).toBeUndefined();
        expect(checkDownload(task, { sign: task.sign, received: 3 })).toBe('固件大小不一致：应为 4 字节，收到 3 字节');
        expect(checkDownload(task, { sign: 'cd'.repeat(16), received: 4 })).toBe('固件签名不一致（MD5）');
    });

    it('a device already on the pushed version informs it (completing the task) and downloads nothing', async () => {
        const published: Array<{ topic: string; body: Record<string, unknown> }> = [];
        const ota: SimOtaState = {
            db: {} as Db,
            publish: (_d, topic, body) => published.push({ topic, body }) > 0,
            log: () => undefined,
            nextId: 1,
            bytesPerSecond: 0,
            flashMs: 0,
        };
        const device: SimOtaDevice = {
            deviceId: 7,
            productKey: 'PkSteps',
            deviceName: 'dev7',
            versions: new Map([['default', '2.0.0']]),
        };
        await install(ota, device, upgradeData(push(good))!);
        expect(published).toEqual([
            {
                topic: '/ota/device/inform/PkSteps/dev7',
                body: { id: '1', params: { version: '2.0.0', module: 'default' } },
            },
        ]);
        expect(otaMessage(ota, device, '/sys/PkSteps/dev7/thing/service/x', Buffer.from('{}'))).toBe(false);
        expect(otaMessage(ota, device, '/ota/device/upgrade/PkSteps/dev7', Buffer.from('{}'))).toBe(true);
    });
});
