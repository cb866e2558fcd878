import { randomInt } from 'node:crypto';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices, products, simulationDevices, simulations } from '../db/schema';
import { insertDevices } from '../domain/deviceWrite';
import { productScopeSql } from '../domain/products';
import { badRequest } from '../http/errors';
import { formatTime } from '../http/time';
import type { ThingModelIndex } from '../mqtt/directory';
import { SIMULATION_DEVICES_MAX, SIMULATION_MESSAGES } from '../../schemas/simulation';
import { coerceValue } from './values';

/** Simulations as stored (table simulations and simulation_devices): create, list, delete. */

export interface NewSimulation {
    productId: number;
    deviceIds: number[];
    amount: number;
    intervalSeconds: number;
    mode: 'random' | 'fixed';
    /** Identifier → value as given (text from a form is made into the property's type). */
    fixedValues: Record<string, unknown>;
    events: boolean;
}

const NAME_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** sim_XXXX: a simulated device's name (4 letters or digits; a clash draws again). */
export function simulatedDeviceName(): string {
    let name = 'sim_';
    for (let i = 0; i < 4; i++) name += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
    return name;
}

/** The fixed values checked against the thing model's properties, each made into its type. */
export function checkFixedValues(model: ThingModelIndex, given: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [identifier, raw] of Object.entries(given)) {
        const fn = model.properties.get(identifier);
        if (!fn) throw badRequest(`属性 ${identifier} 未在物模型中定义`);
        const result = coerceValue(fn.dataType, raw);
        if ('error' in result) throw badRequest(`属性 ${identifier} 的固定值${result.error}`);
        out[identifier] = result.value;
    }
    return out;
}

export async function createSimulation(db: Db, input: NewSimulation, model: ThingModelIndex): Promise<number> {
    const [product] = await db
        .select({
            id: products.id,
            productKey: products.productKey,
            productName: products.productName,
            dataType: products.dataType,
        })
        .from(products)
        .where(eq(products.id, input.productId));
    if (!product) throw badRequest('产品不存在');
    if (product.dataType === 1) throw badRequest('透传产品暂不支持模拟');
    if (!model.properties.size) throw badRequest('该产品的物模型没有属性，无法模拟上报');
    const fixed = input.mode === 'fixed' ? checkFixedValues(model, input.fixedValues) : {};
    if (input.mode === 'fixed' && !Object.keys(fixed).length) throw badRequest(SIMULATION_MESSAGES.fixed);
    if (!input.deviceIds.length && !input.amount) throw badRequest(SIMULATION_MESSAGES.devices);
    if (input.deviceIds.length + input.amount > SIMULATION_DEVICES_MAX) throw badRequest(SIMULATION_MESSAGES.tooMany);

    return db.transaction(async (tx) => {
        if (input.deviceIds.length) {
            const found = await tx
                .select({ id: devices.id })
                .from(devices)
                .where(and(inArray(devices.id, input.deviceIds), eq(devices.productId, product.id)));
            if (found.length !== input.deviceIds.length) throw badRequest('所选设备不存在或不属于该产品');
        }
        const created: number[] = [];
        for (let round = 0; created.length < input.amount; round++) {
            if (round > 20) throw new Error('could not draw unique simulated device names');
            const wanted = new Set<string>();
            while (wanted.size < input.amount - created.length) wanted.add(simulatedDeviceName());
            const rows = await insertDevices(
                tx,
                product,
                [...wanted].map((deviceName) => ({ deviceName, remark: '模拟设备' })),
            );
            created.push(...rows.map((r) => r.id));
        }
        const [row] = await tx
            .insert(simulations)
            .values({
                productId: product.id,
                intervalSeconds: input.intervalSeconds,
                mode: input.mode,
                fixedValues: fixed,
                events: input.events,
            })
            .returning({ id: simulations.id });
        const ids = [...input.deviceIds, ...created];
        await tx
            .insert(simulationDevices)
            .values(ids.map((deviceId, position) => ({ simulationId: row.id, deviceId, position })));
        return row.id;
    });
}

export async function simulationExists(db: Db, id: number): Promise<boolean> {
    const [row] = await db.select({ id: simulations.id }).from(simulations).where(eq(simulations.id, id));
    return !!row;
}

export async function deleteSimulation(db: Db, id: number): Promise<void> {
    await db.delete(simulations).where(eq(simulations.id, id));
}

export interface SimulationRow {
    id: number;
    productId: number;
    productKey: string;
    productName: string;
    deviceCount: number;
    /** The first device (its detail page is linked from the list). */
    firstDeviceId: number | null;
    firstDeviceName: string | null;
    deviceNames: string[];
    intervalSeconds: number;
    mode: 'random' | 'fixed';
    fixedValues: Record<string, unknown>;
    events: boolean;
    running: boolean;
    messagesSent: number;
    createTime: string | null;
    startTime: string | null;
    stopTime: string | null;
}

/** A page of simulations, newest first; `productId` narrows to one product. */
export async function listSimulations(
    db: Db,
    timeZone: string,
    options: { productId?: number; limit: number; offset: number },
): Promise<{ records: SimulationRow[]; total: number }> {
    // A scoped user sees the simulations of the products they see (docs/roles.md "Project scoping").
    const where = and(
        options.productId !== undefined ? eq(simulations.productId, options.productId) : undefined,
        productScopeSql(),
    );
    const [{ total }] = await db
        .select({ total: count() })
        .from(simulations)
        .innerJoin(products, eq(products.id, simulations.productId))
        .where(where);
    const rows = await db
        .select({
            id: simulations.id,
            productId: simulations.productId,
            productKey: products.productKey,
            productName: products.productName,
            intervalSeconds: simulations.intervalSeconds,
            mode: simulations.mode,
            fixedValues: simulations.fixedValues,
            events: simulations.events,
            running: simulations.running,
            messagesSent: simulations.messagesSent,
            createTime: simulations.createTime,
            startTime: simulations.startTime,
            stopTime: simulations.stopTime,
        })
        .from(simulations)
        .innerJoin(products, eq(products.id, simulations.productId))
        .where(where)
        .orderBy(desc(simulations.id))
        .limit(options.limit)
        .offset(options.offset);
    const ids = rows.map((r) => r.id);
    const members = ids.length
        ? await db
              .select({
                  simulationId: simulationDevices.simulationId,
                  deviceId: simulationDevices.deviceId,
                  deviceName: devices.deviceName,
              })
              .from(simulationDevices)
              .innerJoin(devices, eq(devices.id, simulationDevices.deviceId))
              .where(inArray(simulationDevices.simulationId, ids))
              .orderBy(simulationDevices.simulationId, simulationDevices.position)
        : [];
    const bySim = new Map<number, Array<{ deviceId: number; deviceName: string }>>();
    for (const m of members) {
        const list = bySim.get(m.simulationId) ?? [];
        list.push({ deviceId: Number(m.deviceId), deviceName: m.deviceName });
        bySim.set(m.simulationId, list);
    }
    return {
        total: Number(total),
        records: rows.map((r) => {
            const list = bySim.get(r.id) ?? [];
            return {
                id: r.id,
                productId: r.productId,
                productKey: r.productKey,
                productName: r.productName,
                deviceCount: list.length,
                firstDeviceId: list[0]?.deviceId ?? null,
                firstDeviceName: list[0]?.deviceName ?? null,
                deviceNames: list.slice(0, 20).map((d) => d.deviceName),
                intervalSeconds: r.intervalSeconds,
                mode: r.mode === 'fixed' ? 'fixed' : 'random',
                fixedValues: (r.fixedValues ?? {}) as Record<string, unknown>,
                events: r.events,
                running: r.running,
                messagesSent: Number(r.messagesSent),
                createTime: formatTime(r.createTime, timeZone),
                startTime: formatTime(r.startTime, timeZone),
                stopTime: formatTime(r.stopTime, timeZone),
            };
        }),
    };
}

/** Running simulations' count, for the list's figure. */
export async function runningCount(db: Db): Promise<number> {
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(simulations)
        .where(eq(simulations.running, true));
    return Number(n);
}
