import { createInterface } from 'node:readline';
import { eq } from 'drizzle-orm';
import type { Db } from '../../server/db/client';
import { devices, products } from '../../server/db/schema';
import { insertDevices } from '../../server/domain/deviceWrite';
import { seedDatabase } from '../../server/seed';

/**
 * What the benches' platform processes (mqtt/brokerProcess.ts, rules/brokerProcess.ts, amqp/platformProcess.ts) share:
 * the demo platform with `count` devices of its lamp product, and the stdin command loop the bench drives them with.
 */

export type BenchDevice = [productKey: string, deviceName: string, secret: string];

/** The demo seed plus `count` lamps named bench000000, bench000001, ...: the lamp product and the devices. */
export async function seedBenchLamps(db: Db, count: number) {
    await seedDatabase(db, { demo: true });
    const [lamp] = await db.select().from(products).where(eq(products.productName, '智能路灯_L1'));
    const names = Array.from({ length: count }, (_, i) => ({ deviceName: `bench${String(i).padStart(6, '0')}` }));
    await db.transaction((tx) => insertDevices(tx, lamp, names));
    const rows = await db
        .select({ deviceName: devices.deviceName, secret: devices.secret })
        .from(devices)
        .where(eq(devices.productId, lamp.id));
    const benchDevices = rows
        .filter((r) => r.deviceName.startsWith('bench'))
        .map((r): BenchDevice => [lamp.productKey, r.deviceName, r.secret]);
    return { lamp, devices: benchDevices };
}

/** Prints one JSON line: how a platform process answers the bench. */
export const answer = (value: unknown) => void process.stdout.write(JSON.stringify(value) + '\n');

/**
 * Answers the bench's commands on stdin: a line `name rest` runs handlers[name](rest); what it returns (or resolves
 * to) is printed as one JSON line, nothing when undefined. A failing command prints `{ error }`.
 */
export function answerCommands(handlers: Record<string, (arg: string) => unknown>): void {
    createInterface({ input: process.stdin }).on('line', (line) => {
        const text = line.trim();
        const space = text.indexOf(' ');
        const [name, arg] = space < 0 ? [text, ''] : [text.slice(0, space), text.slice(space + 1).trim()];
        const handler = handlers[name];
        if (!handler) return;
        void Promise.resolve()
            .then(() => handler(arg))
            .then(
                (value) => value !== undefined && answer(value),
                (err: Error) => answer({ error: err.message }),
            );
    });
}
