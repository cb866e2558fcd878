/**
 * The platform's broker with the rule engine, in a process of its own, for `npm run bench -- rules`: an in-memory
 * PGlite (or DATABASE_URL) with the demo seed, DEVICES devices of the demo lamp product, the broker on a free port and
 * the rule engine listening to it. Prints `{ port, devices }`, then answers on stdin: `rules N` or `rules Nany` (N
 * enabled rules on the lamp product, replacing the earlier ones) with `{ rules }`, and `stats` with `{ written, evaluated, fired }`.
 */
import { openDatabase } from '../../../server/db/client';
import { rules } from '../../../server/db/schema';
import { createAccessHub } from '../../../server/mqtt/access';
import { createBroker } from '../../../server/mqtt/broker';
import { createRuleEngine } from '../../../server/rules/engine';
import { answer, answerCommands, seedBenchLamps } from '../harness';

const count = Number(process.env.DEVICES ?? 1000);
const handle = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {});
const { lamp, devices: benchDevices } = await seedBenchLamps(handle.db, count);
const broker = await createBroker({ db: handle.db, log: () => undefined });
const access = createAccessHub();
access.attach(broker);
const engine = createRuleEngine({ db: handle.db, access, timeZone: 'Asia/Shanghai', logError: () => undefined });
await engine.attach();
const port = await broker.listen(0, '0.0.0.0');

/**
 * N rules as people write them, on the lamp product whose posts carry ActivePower 0..199.9: rule i compares
 * ActivePower > (2i mod 2000) and FirmwareVersion == 'v0' (never posted, so it never holds), raising an alert; so for a
 * typical value about 5% of the rules pass their first condition and are evaluated in full. Rule 0 and every 500th
 * compare ActivePower > 199 alone: they fire (an alert, a journal row) and recover now and then. `any` instead: match any, which the guard index cannot narrow
 * (every rule evaluated on every message; the thresholds are above 200, so none holds).
 */
async function setRules(n: number, any: boolean) {
    await handle.db.delete(rules);
    const values = Array.from({ length: n }, (_, i) => ({
        name: `bench rule ${i}`,
        type: 1,
        productId: lamp.id,
        enabled: true,
        triggers: [{ id: 't', type: 'property', identifier: 'ActivePower' }],
        match: any ? 'any' : 'all',
        conditions: any
            ? [
                  { id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: 200 + (i % 1800) },
                  { id: 'b', source: 'property', identifier: 'FirmwareVersion', operator: '==', value: 'v0' },
              ]
            : i % 500 === 0
              ? [{ id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: 199 }]
              : [
                    { id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: (2 * i) % 2000 },
                    { id: 'b', source: 'property', identifier: 'FirmwareVersion', operator: '==', value: 'v0' },
                ],
        actions: [{ id: 'x', type: 'alert', level: 3, content: '${deviceName} 功率 ${value}' }],
    }));
    for (let i = 0; i < values.length; i += 500) await handle.db.insert(rules).values(values.slice(i, i + 500));
    await engine.refresh();
    return engine.size;
}

answer({ port, devices: benchDevices });
/**
 * The engine alone: `messages` synthetic property posts of the bench devices handed to it as the broker would, timed
 * (microseconds per message). Firings start their database work in the background; only evaluation is timed.
 */
function micro(messages: number) {
    const entries = benchDevices.slice(0, 1000).map(([productKey, deviceName, secret], i) => ({
        deviceId: 1_000_000 + i,
        productId: lamp.id,
        productKey,
        deviceName,
        secret,
        enabled: true,
        nodeType: 0,
        passthrough: false,
        gwId: null,
        status: 'ONLINE',
    }));
    const t0 = performance.now();
    for (let n = 0; n < messages; n++) {
        const i = n % entries.length;
        engine.onMessage({
            device: entries[i],
            topic: '',
            kind: 'property',
            values: { Brightness: n % 101, ActivePower: (((n + i * 37) * 7919) % 2000) / 10, LightSwitch: n % 2 },
            ts: new Date(),
            requestId: String(n),
            payload: Buffer.alloc(0),
        });
    }
    return ((performance.now() - t0) * 1000) / messages;
}

answerCommands({
    stats: () => ({
        written: broker.writer.written,
        evaluated: engine.counters.evaluated,
        fired: engine.counters.fired,
    }),
    micro: (n) => ({ usPerMessage: micro(Number(n)) }),
    rules: async (arg) => ({ rules: await setRules(Number(arg.replace('any', '')), arg.endsWith('any')) }),
});
