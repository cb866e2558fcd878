import type { TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { call, form, type Answer } from './support';
import { lampProduct } from './telemetrySupport';

/** One successful call per /api/simulation operation of openapi.yaml, for contract.test.ts (with a broker of its own). */
export function simulationHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    let broker: Promise<Broker | undefined> | undefined;
    // The broker another family's cases attached to the shared server, else one of its own.
    const withBroker = () =>
        (broker ??= s().access.running ? Promise.resolve(undefined) : startBroker(s()).then((b) => b.broker));
    /** A stopped simulation of one new lamp, and its device. */
    const made = async (start = false) => {
        await withBroker();
        const product = await lampProduct(s());
        const answer = await call(
            s(),
            'POST',
            '/api/simulation/save',
            form({
                productId: product.productId,
                amount: 1,
                intervalSeconds: 3600,
                mode: 'random',
                start: String(start),
            }),
        );
        const id = (answer.body.data as { id: number }).id;
        const list = await call(s(), 'GET', '/api/simulation/list?pageNumber=1&pageSize=100');
        const row = (list.body.data as { records: Array<{ id: number; firstDeviceId: number }> }).records.find(
            (r) => r.id === id,
        )!;
        return { id, deviceId: row.firstDeviceId };
    };
    /** A device online through onLine. */
    const online = async () => {
        const { deviceId } = await made();
        await call(s(), 'POST', '/api/simulation/onLine', form({ deviceId }));
        await until(() => s().simulator.isSimulated(deviceId));
        return deviceId;
    };
    return {
        'GET /api/simulation/list': async () => {
            await made(true);
            return call(s(), 'GET', '/api/simulation/list?pageNumber=1&pageSize=10');
        },
        'POST /api/simulation/save': async () => {
            await withBroker();
            const product = await lampProduct(s());
            return call(
                s(),
                'POST',
                '/api/simulation/save',
                form({
                    productId: product.productId,
                    amount: 1,
                    intervalSeconds: 60,
                    mode: 'fixed',
                    fixedValues: '{"Brightness":50}',
                }),
            );
        },
        'POST /api/simulation/start': async () =>
            call(s(), 'POST', '/api/simulation/start', form({ id: (await made()).id })),
        'POST /api/simulation/stop': async () =>
            call(s(), 'POST', '/api/simulation/stop', form({ id: (await made(true)).id })),
        'DELETE /api/simulation/delete': async () =>
            call(s(), 'DELETE', `/api/simulation/delete?id=${(await made()).id}`),
        'POST /api/simulation/onLine': async () =>
            call(s(), 'POST', '/api/simulation/onLine', form({ deviceId: (await made()).deviceId })),
        'POST /api/simulation/offLine': async () =>
            call(s(), 'POST', '/api/simulation/offLine', form({ deviceId: await online() })),
        'POST /api/simulation/sendProperty': async () =>
            call(s(), 'POST', '/api/simulation/sendProperty', form({ deviceId: await online() })),
        'POST /api/simulation/sendEvent': async () =>
            call(s(), 'POST', '/api/simulation/sendEvent', form({ deviceId: await online(), identifier: 'LampFault' })),
    };
}
