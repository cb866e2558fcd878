import type { MqttClient } from 'mqtt';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import type { TestServer } from '../../server/testing';
import { connect, secretOf, startBroker, subscribe, type Broker } from './mqttSupport';
import { answered, call, expectContract, form, type Answer } from './support';
import { freshLamp } from './telemetrySupport';

/**
 * Happy cases of the device-access operations (contract.test.ts): a broker on the shared test server and one lamp
 * connected through it that answers every downlink call. Started by the first case that needs it.
 */
export function accessHappyCases(s: () => TestServer) {
    let ready: Promise<{
        broker: Broker;
        client: MqttClient;
        deviceId: number;
        productKey: string;
        deviceName: string;
    }>;
    const online = () =>
        (ready ??= (async () => {
            const { broker, url } = await startBroker(s());
            const row = await freshLamp(s());
            const deviceId = Number(row.deviceId);
            const device = { ...row, secret: await secretOf(s(), deviceId) };
            const client = await connect(url, alibabaCredentials(device));
            const sys = `/sys/${device.productKey}/${device.deviceName}`;
            await subscribe(client, `${sys}/thing/service/#`);
            await subscribe(client, `${sys}/rrpc/request/+`);
            client.on('message', (topic, payload) => {
                // RRPC: the bytes back, on the response topic of the request's message id.
                if (topic.startsWith(`${sys}/rrpc/request/`))
                    return client.publish(topic.replace('/rrpc/request/', '/rrpc/response/'), payload);
                if (topic.endsWith('_reply') || !topic.includes('/thing/service/')) return;
                const req = JSON.parse(payload.toString()) as { id: string };
                client.publish(`${topic}_reply`, JSON.stringify({ id: req.id, code: 200, data: {} }));
            });
            return { broker, client, deviceId, productKey: device.productKey, deviceName: device.deviceName };
        })());
    const cases = {
        'POST /api/device/propertyTestSet': async () => {
            const d = await online();
            return call(
                s(),
                'POST',
                '/api/device/propertyTestSet',
                form({ deviceId: d.deviceId, params: '{"Brightness":9}' }),
            );
        },
        'POST /api/device/serviceTestSet': async () => {
            const d = await online();
            return call(
                s(),
                'POST',
                '/api/device/serviceTestSet',
                form({ deviceId: d.deviceId, identifier: 'SetSchedule', params: '{"OnTime":"18:00"}', sync: 'true' }),
            );
        },
        'POST /api/device/rrpc': async () => {
            const d = await online();
            const request = Buffer.from('ping').toString('base64');
            return call(s(), 'POST', '/api/device/rrpc', form({ deviceId: d.deviceId, requestBase64Byte: request }));
        },
        'GET /api/device/shadow': async () => {
            const d = await online();
            return call(s(), 'GET', `/api/device/shadow?deviceId=${d.deviceId}`);
        },
        'POST /api/device/shadow/update': async () => {
            const d = await online();
            return call(
                s(),
                'POST',
                '/api/device/shadow/update',
                form({ deviceId: d.deviceId, desired: '{"Brightness":50}' }),
            );
        },
        'POST /ms3/publishMessage': async () => {
            const d = await online();
            const topic = `/${d.productKey}/${d.deviceName}/user/get`;
            return call(s(), 'POST', '/ms3/publishMessage', form({ deviceId: d.deviceId, topic, payload: 'hi' }));
        },
        // An endless stream: read up to its first event, then hang up.
        'GET /api/monitor/stream': async (): Promise<Answer<unknown>> => {
            const d = await online();
            const res = await s().fetch(`/api/monitor/stream?deviceId=${d.deviceId}`);
            const reader = res.body!.getReader();
            const { value } = await reader.read();
            await reader.cancel();
            const body = new TextDecoder().decode(value);
            expectContract('GET', '/api/monitor/stream', res.status, body);
            answered.add(`GET /api/monitor/stream ${res.status}`);
            return { status: res.status, body, res };
        },
        'GET /api/monitor/real': async () => {
            await online();
            return call(s(), 'GET', '/api/monitor/real');
        },
    };
    /** Ends the device and the broker, if a case started them (afterAll). */
    const stop = async () => {
        if (!ready) return;
        const d = await ready;
        d.client.end(true);
        await d.broker.close();
    };
    return { cases, stop };
}
