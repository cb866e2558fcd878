import { PROPERTY_POST } from '../../server/domain/telemetry';
import type { TestServer } from '../../server/testing';
import { call, form, type Answer } from './support';

interface DemoDevice {
    deviceId: number;
    deviceName: string;
    productKey: string;
}

/** One successful call per property, history, event and ListProperty operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function telemetryHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    // The demo lamp SL-BJ-0001 is online with two days of reports, events and service calls (server/seed/telemetry.ts).
    const lamp = async () => {
        const answer = await call(s(), 'GET', '/api/device/list?pageNumber=1&pageSize=1&deviceName=SL-BJ-0001');
        return (answer.body.data as { records: DemoDevice[] }).records[0];
    };
    return {
        'GET /api/device/properties': async () =>
            call(s(), 'GET', `/api/device/properties?deviceId=${(await lamp()).deviceId}`),
        'GET /api/device/propertyHistory': async () => {
            const end = Date.now();
            return call(
                s(),
                'GET',
                `/api/device/propertyHistory?deviceId=${(await lamp()).deviceId}&identifier=ActivePower&pageNumber=1` +
                    `&pageSize=10&asc=false&startTime=${end - 24 * 3600 * 1000}&endTime=${end}`,
            );
        },
        'GET /api/device/events': async () =>
            call(
                s(),
                'GET',
                `/api/device/events?deviceId=${(await lamp()).deviceId}&timeType=month&nextPage=1&pageSize=50`,
            ),
        'POST /api/function/ListProperty': async () => {
            const d = await lamp();
            return call(
                s(),
                'POST',
                '/api/function/ListProperty',
                form({ productKey: d.productKey, deviceName: d.deviceName, size: 10, method: PROPERTY_POST }),
            );
        },
    };
}
