import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMessages, products } from '../../server/db/schema';
import { loadShadow } from '../../server/domain/shadow';
import { latestValues } from '../../server/domain/telemetry';
import { createTestServer, type TestServer } from '../../server/testing';
import { startLiveDemo } from '../../server/seed/live';
import { loadTls } from '../../server/tls/certificates';
import { EXAMPLE, helpSamples, run, scratchDir, start, substitute, type Ran, type Sample } from './helpSupport';
import { secretOf, startBroker, until, type Broker } from './mqttSupport';
import { demoDevice } from './telemetrySupport';
import { call, form, json } from './support';

/**
 * Every command and code sample of the help pages (docs/help/*.md) runs here as printed against a fresh demo start
 * (the live demo running: its simulations and rules at work beside the samples): the demo lamp SL-BJ-0001's
 * ProductKey and DeviceSecret are the manual's (server/seed/demo.ts, devices.ts), so only the ports change: this
 * platform's MQTT broker listens on a free TCP port and on the HTTP server's /mqtt, since 1883 and 8080 may be
 * another program's (Mosquitto holds 1883 on these machines). A sample is checked by its name (the fence's `test=name`): what
 * a reader would see (the output) and what the platform then holds. The AMQP samples are helpAmqpSamples.test.ts's.
 */
let s: TestServer;
let broker: Broker;
let http: Server;
let values: Parameters<typeof substitute>[1];
let device: { deviceId: number; productKey: string; deviceName: string };
let scratch: ReturnType<typeof scratchDir>;
let n = 0;

const samples = helpSamples();
const runnable = samples.filter((x) => x.kind === 'test');

async function property(identifier: string): Promise<unknown> {
    return (await latestValues(s.db, device.deviceId))[identifier];
}

const becomes = (identifier: string, value: unknown) =>
    until(async () => JSON.stringify(await property(identifier)) === JSON.stringify(value), 5_000);

const exitsCleanly = (ran: Ran, sample: Sample) =>
    expect(ran.code, `${sample.file}:${sample.line} 退出码非 0:\n${ran.output}`).toBe(0);

/** What each named sample must achieve once run to its end. */
const CHECKS: Record<string, (ran: Ran, sample: Sample) => Promise<void>> = {
    'post-plain': async (ran, sample) => {
        exitsCleanly(ran, sample);
        await becomes('Brightness', 66);
    },
    'post-signed': async (ran, sample) => {
        exitsCleanly(ran, sample);
        await becomes('Brightness', 35);
    },
    'post-mqttjs': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toMatch(/平台应答: \{"id":"3","code":200/);
        await becomes('Brightness', 80);
    },
    'post-websocket': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toContain('已通过 WebSocket 上报');
        await becomes('WorkMode', 2);
    },
    'post-event': async (ran, sample) => {
        exitsCleanly(ran, sample);
        await until(async () => {
            const rows = await s.db
                .select({ data: deviceMessages.data })
                .from(deviceMessages)
                .where(
                    and(
                        eq(deviceMessages.deviceId, device.deviceId),
                        eq(deviceMessages.method, 'thing.event.LampFault.post'),
                    ),
                );
            return rows.some((r) => JSON.stringify(r.data).includes('"FaultCode":2'));
        });
    },
    'refused-password': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toContain('Connection Refused: bad user name or password');
        expect(ran.output).toMatch(/被拒绝，退出码 [1-9]/);
    },
    'post-with-time': async (ran, sample) => {
        exitsCleanly(ran, sample);
        await becomes('ActivePower', 120.5);
        await becomes('TotalEnergy', 3021.75);
    },
    ntp: async (ran, sample) => {
        exitsCleanly(ran, sample);
        const [, iso] = /平台时间: (\S+)/.exec(ran.output) ?? [];
        expect(Math.abs(Date.parse(iso) - Date.now())).toBeLessThan(60_000);
    },
    shadow: async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toMatch(/影子已更新，版本 \d{13}/);
        expect(ran.output).toContain('设备上报的状态: ');
        const shadow = await loadShadow(s.db, device.deviceId);
        expect(shadow?.reported).toMatchObject({ LightSwitch: 1, Brightness: 60 });
    },
    'post-tls-mosquitto': async (ran, sample) => {
        exitsCleanly(ran, sample);
        await becomes('Brightness', 42);
    },
    'post-tls-mqttjs': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toContain('已通过 TLS 上报');
        await becomes('Brightness', 43);
    },
    'post-tls-alibaba': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toContain('已通过 TLS 上报，应答 200');
        await becomes('Brightness', 44);
    },
    'reconnect-options': async (ran, sample) => {
        exitsCleanly(ran, sample);
        expect(ran.output).toContain('已上报并确认');
        await becomes('LightSwitch', 0);
    },
};

/** Samples that keep running (a device waiting for calls): started, driven through the API, stopped. */
const LIVE: Record<string, (sample: Sample, code: string) => Promise<void>> = {
    // Not long-running, but the product needs a configuration first, and the download URL names this HTTP server.
    'config-get': async (sample, code) => {
        const content = '{"reportInterval":30}';
        const [product] = await s.db.select().from(products).where(eq(products.productKey, device.productKey));
        const saved = await call(
            s,
            'POST',
            '/api/product/config/save',
            json({ productId: product.id, format: 'json', content }),
        );
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
        const port = s.config.port;
        s.config.port = values.httpPort as number;
        try {
            const ran = await run(sample, code, scratch.dir, ++n);
            exitsCleanly(ran, sample);
            expect(ran.output).toContain(`配置已下载，校验通过: ${content}`);
        } finally {
            s.config.port = port;
        }
    },
    'device-replies': async (sample, code) => {
        const running = start(sample, code, scratch.dir, ++n);
        try {
            await running.waitFor('已连接，等待平台的调用…');
            const service = await call(
                s,
                'POST',
                '/api/device/serviceTestSet',
                form({
                    deviceId: device.deviceId,
                    identifier: 'SetSchedule',
                    sync: 'true',
                    params: JSON.stringify({ OnTime: '18:00', OffTime: '06:00' }),
                }),
            );
            expect(service.body).toMatchObject({ code: 0, data: { state: 'replied', code: 200, data: { Result: 1 } } });
            await running.waitFor('收到 SetSchedule {"OnTime":"18:00","OffTime":"06:00"}');
            const set = await call(
                s,
                'POST',
                '/api/device/propertyTestSet',
                form({ deviceId: device.deviceId, params: JSON.stringify({ Brightness: 50 }) }),
            );
            expect(set.body).toMatchObject({ code: 0, data: { state: 'replied', code: 200 } });
            // The program reports the value it was set to, so the platform holds it.
            await becomes('Brightness', 50);
        } finally {
            await running.stop();
        }
    },
};

beforeAll(async () => {
    s = await createTestServer({ live: true });
    broker = (await startBroker(s)).broker;
    await startLiveDemo(s);
    const mqttPort = await broker.listen(0, '127.0.0.1');
    http = createAdaptorServer({ fetch: s.app.fetch }) as Server;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    broker.attachWebSocket(http);
    // MQTTS with the CA the first start makes (DATA_DIR/tls/ca.pem), as the TLS samples use it.
    const material = await loadTls({ dataDir: scratchDir().dir, certFile: undefined, keyFile: undefined });
    const mqttsPort = await broker.listenTls(0, '127.0.0.1', { key: material.key, cert: material.cert });
    device = await demoDevice(s, 'SL-BJ-0001');
    // The keys as printed: a fresh demo has them, so the samples need no other values than the ports and the CA file.
    expect(device.productKey).toBe(EXAMPLE.productKey);
    expect(await secretOf(s, device.deviceId)).toBe(EXAMPLE.deviceSecret);
    values = {
        mqttPort,
        httpPort: (http.address() as AddressInfo).port,
        mqttsPort,
        caFile: material.caFile!,
    };
    scratch = scratchDir();
});

afterAll(async () => {
    scratch?.remove();
    await new Promise((r) => http?.close(r));
    await broker?.close();
    await s?.close();
});

describe('help pages: every sample runs against the platform', () => {
    it('finds the samples, and every command or program in the pages is one', () => {
        expect(runnable.length).toBeGreaterThanOrEqual(10);
        const untested = samples.filter((x) => ['sh', 'bash', 'js', 'ts', 'python', 'py'].includes(x.lang) && !x.kind);
        expect(untested.map((x) => `${x.file}:${x.line}`)).toEqual([]);
        // Shown data (an answer's JSON) is at least valid JSON.
        for (const x of samples.filter((y) => y.lang === 'json')) expect(() => JSON.parse(x.code)).not.toThrow();
        // Each sample says what it proves: a name this test checks, and each check has its sample.
        const names = runnable.map((x) => x.name);
        expect(names.filter((name) => !name || !(name in CHECKS || name in LIVE))).toEqual([]);
        expect([...Object.keys(CHECKS), ...Object.keys(LIVE)].filter((name) => !names.includes(name))).toEqual([]);
    });

    for (const sample of runnable) {
        it(`${sample.file}:${sample.line} ${sample.lang} ${sample.name ?? ''}`, async () => {
            const code = substitute(sample.code, values);
            const live = sample.name ? LIVE[sample.name] : undefined;
            if (live) return live(sample, code);
            const ran = await run(sample, code, scratch.dir, ++n);
            await CHECKS[sample.name!](ran, sample);
        });
    }
});
