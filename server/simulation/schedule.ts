import { randomInt } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { simulationDevices, simulations } from '../db/schema';
import { badRequest } from '../http/errors';
import { curveOf } from './curves';
import { postEvent, postProperties } from './messages';
import { acquire, loadDevices, release } from './sessions';
import type { Running, SimDevice, SimulatorState } from './state';
import { eventValues, propertyPost } from './values';

/**
 * Simulations running in this process: each posts for its devices every interval (random or fixed values, a demo
 * product's curves, events now and then), and its message count is written to its row every FLUSH_MS.
 */

/** How often the running simulations' message counts are written to their rows. */
export const FLUSH_MS = 5_000;

/** One report of one device: its properties (the curve's where the product has one) and maybe an event. */
export async function tickDevice(state: SimulatorState, sim: Running, device: SimDevice): Promise<void> {
    const model = await state.directory.model(device.productId).catch(() => undefined);
    if (!model) return;
    const values = propertyPost(model.properties.values(), sim.mode, sim.fixed);
    // A demo product's random simulation follows its curves (server/simulation/curves.ts), for the properties its
    // thing model still has, and posts an event only now and then.
    const curve = sim.mode === 'random' ? curveOf(device.productKey) : undefined;
    if (curve) {
        const ctx = { now: Date.now(), startedAt: sim.startedAt, index: sim.deviceIds.indexOf(device.deviceId) };
        for (const [identifier, value] of Object.entries(curve.values(ctx))) {
            if (model.properties.has(identifier)) values[identifier] = value;
        }
    }
    postProperties(state, device, values);
    const eventNow = !curve || (curve.eventOneIn !== undefined && randomInt(curve.eventOneIn) === 0);
    if (sim.events && model.events.size && eventNow) {
        const list = [...model.events.values()];
        const fn = list[randomInt(list.length)];
        postEvent(state, device, fn.identifier, eventValues(fn));
    }
}

/** A simulation's interval: every connected device reports. */
export function tickSimulation(state: SimulatorState, sim: Running): void {
    for (const id of sim.deviceIds) {
        const device = state.live.get(id);
        if (device?.client?.connected) void tickDevice(state, sim, device);
    }
}

/** A device just connected: its first report at once for each simulation holding it (values without a wait). */
export function firstReport(state: SimulatorState, device: SimDevice): void {
    for (const owner of device.owners) {
        if (owner === 'manual') continue;
        const sim = state.running.get(owner);
        if (sim) void tickDevice(state, sim, device);
    }
}

/** Adds the counts sent since the last flush to the simulations' rows (kept for the next flush on a failure). */
export async function flush(state: SimulatorState): Promise<void> {
    const pending = [...state.running.values()].filter((s) => s.unflushed > 0);
    for (const sim of pending) {
        const n = sim.unflushed;
        sim.unflushed = 0;
        await state.db
            .update(simulations)
            .set({ messagesSent: sql`${simulations.messagesSent} + ${n}` })
            .where(eq(simulations.id, sim.id))
            .catch((err: Error) => {
                sim.unflushed += n;
                state.log(`模拟消息计数写入失败: ${err.message}`);
            });
    }
}

function ensureFlushing(state: SimulatorState): void {
    if (state.flushTimer || state.closed) return;
    state.flushTimer = setInterval(() => void flush(state), FLUSH_MS);
    state.flushTimer.unref();
}

/** The simulation as its row says: devices in their order, interval, mode and values. */
async function loadSimulation(state: SimulatorState, id: number) {
    const [row] = await state.db.select().from(simulations).where(eq(simulations.id, id));
    if (!row) throw badRequest('模拟不存在');
    const ids = (
        await state.db
            .select({ deviceId: simulationDevices.deviceId })
            .from(simulationDevices)
            .where(eq(simulationDevices.simulationId, id))
            .orderBy(asc(simulationDevices.position))
    ).map((r) => Number(r.deviceId));
    return { row, infos: await loadDevices(state, ids) };
}

/** Runs the simulation here: its devices connect and report every interval. */
export async function runSimulation(state: SimulatorState, id: number): Promise<void> {
    const { row, infos } = await loadSimulation(state, id);
    const sim: Running = {
        id,
        deviceIds: infos.map((d) => d.deviceId),
        intervalMs: row.intervalSeconds * 1000,
        mode: row.mode === 'fixed' ? 'fixed' : 'random',
        fixed: (row.fixedValues ?? {}) as Record<string, unknown>,
        events: row.events,
        unflushed: 0,
        startedAt: Date.now(),
    };
    state.running.set(id, sim);
    for (const info of infos) acquire(state, info, id);
    sim.timer = setInterval(() => tickSimulation(state, sim), sim.intervalMs);
    sim.timer.unref();
    ensureFlushing(state);
}

/** Stops the simulation here: its count is written and its devices let go. */
export async function haltSimulation(state: SimulatorState, id: number): Promise<void> {
    const sim = state.running.get(id);
    if (!sim) return;
    clearInterval(sim.timer);
    await flush(state);
    state.running.delete(id);
    await Promise.all(sim.deviceIds.map((d) => release(state, d, id)));
}

/** Runs every simulation marked running that does not run here yet; answers how many started. */
export async function resumeSimulations(state: SimulatorState): Promise<number> {
    const rows = await state.db.select({ id: simulations.id }).from(simulations).where(eq(simulations.running, true));
    let n = 0;
    for (const r of rows) {
        if (state.running.has(r.id)) continue;
        try {
            await runSimulation(state, r.id);
            n++;
        } catch (err) {
            state.log(`模拟 ${r.id} 恢复失败: ${String(err)}`);
        }
    }
    return n;
}
