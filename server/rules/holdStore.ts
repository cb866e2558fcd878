import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deviceLatest, devices, ruleHolds } from '../db/schema';

/**
 * The remembered state of rules with property conditions (docs/rules.md "Restarts"): since when the conditions have
 * held for a device and whether the rule fired. Written on each change of it (starts holding, fires, stops holding),
 * never per message; read when a server starts, so a duration ("above 80 for 5 minutes") keeps counting over a
 * restart and a rule that fired does not fire again while its conditions still hold.
 */

export async function saveHold(db: Db, ruleId: number, deviceId: number, since: number, fired: boolean) {
    const row = { since: new Date(since), fired };
    await db
        .insert(ruleHolds)
        .values({ ruleId, deviceId, ...row })
        .onConflictDoUpdate({ target: [ruleHolds.ruleId, ruleHolds.deviceId], set: row });
}

export async function dropHold(db: Db, ruleId: number, deviceId: number) {
    await db.delete(ruleHolds).where(and(eq(ruleHolds.ruleId, ruleId), eq(ruleHolds.deviceId, deviceId)));
}

/** A rule was edited (or enabled, disabled): what it remembered no longer applies. */
export async function forgetHolds(db: Db, ruleId: number) {
    await db.delete(ruleHolds).where(eq(ruleHolds.ruleId, ruleId));
}

export async function loadHolds(db: Db, ruleIds: number[]) {
    if (!ruleIds.length) return [];
    const rows = await db
        .select({
            ruleId: ruleHolds.ruleId,
            deviceId: ruleHolds.deviceId,
            deviceName: devices.deviceName,
            since: ruleHolds.since,
            fired: ruleHolds.fired,
        })
        .from(ruleHolds)
        .innerJoin(devices, eq(devices.id, ruleHolds.deviceId))
        .where(inArray(ruleHolds.ruleId, ruleIds));
    return rows.map((r) => ({
        ...r,
        ruleId: Number(r.ruleId),
        deviceId: Number(r.deviceId),
        since: r.since.getTime(),
    }));
}

/** A device's stored property values (the latest of each: device_latest's props, `{ identifier: { v, t } }`). */
export async function storedProperties(db: Db, deviceId: number): Promise<Record<string, unknown>> {
    const [row] = await db
        .select({ props: deviceLatest.props })
        .from(deviceLatest)
        .where(eq(deviceLatest.deviceId, deviceId));
    const props = (row?.props ?? {}) as Record<string, { v: unknown }>;
    return Object.fromEntries(Object.entries(props).map(([identifier, p]) => [identifier, p.v]));
}
