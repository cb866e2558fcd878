import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { alertEvents } from '../db/schema';
import { isUniqueViolation } from '../http/errors';

/**
 * The alert lifecycle on alert_events (docs/rules.md "Alerts"):
 * - open: a rule's alert action, at most one open (clear_time null) per (rule, device): the partial unique index
 *   alert_events_open_uq makes a second one impossible even across processes;
 * - recovered: the condition stopped holding. Rules with autoClear close the alert (handled, remark 条件恢复，自动清除);
 *   the others keep it pending (recover_time set) until a person handles it;
 * - handled (处理) with a remark: status 1; an alert whose condition no longer holds (or an event's alert, which
 *   never "holds") closes at once, one whose condition still holds closes when it recovers.
 */

export const AUTO_CLEAR_REMARK = '条件恢复，自动清除';

export interface OpenAlert {
    ruleId: number;
    deviceId: number;
    deviceName: string;
    productKey: string;
    projectId: number | null;
    level: number;
    content: string;
    input: unknown;
    /** Event and status alerts: nothing holds, so handling closes them. */
    discrete: boolean;
    now: Date;
}

/** The new alert's id, or undefined when one is already open for this rule and device. */
export async function openAlert(db: Db, a: OpenAlert): Promise<number | undefined> {
    const [open] = await db
        .select({ id: alertEvents.id, recoverTime: alertEvents.recoverTime })
        .from(alertEvents)
        .where(
            and(eq(alertEvents.ruleId, a.ruleId), eq(alertEvents.deviceId, a.deviceId), isNull(alertEvents.clearTime)),
        );
    if (open) {
        // Held again before anyone handled it: it is the same alert, not a new one.
        if (open.recoverTime && !a.discrete)
            await db.update(alertEvents).set({ recoverTime: null }).where(eq(alertEvents.id, open.id));
        return undefined;
    }
    try {
        const [row] = await db
            .insert(alertEvents)
            .values({
                type: a.level,
                status: 0,
                projectId: a.projectId,
                deviceId: a.deviceId,
                deviceName: a.deviceName,
                productKey: a.productKey,
                params: a.content,
                ts: a.now,
                ruleId: a.ruleId,
                input: a.input ?? null,
                recoverTime: a.discrete ? a.now : null,
            })
            .returning({ id: alertEvents.id });
        return Number(row.id);
    } catch (err) {
        if (isUniqueViolation(err)) return undefined;
        throw err;
    }
}

/** The rule's condition stopped holding for the device; answers the ids of the alerts that recovered. */
export async function recoverAlert(
    db: Db,
    ruleId: number,
    deviceId: number,
    autoClear: boolean,
    now: Date,
): Promise<number[]> {
    const open = and(eq(alertEvents.ruleId, ruleId), eq(alertEvents.deviceId, deviceId), isNull(alertEvents.clearTime));
    const id = { id: alertEvents.id };
    if (autoClear) {
        const rows = await db
            .update(alertEvents)
            .set({
                clearTime: now,
                recoverTime: now,
                status: 1,
                handleTime: sql`coalesce(${alertEvents.handleTime}, ${now.toISOString()}::timestamptz)`,
                remark: sql`coalesce(${alertEvents.remark}, ${AUTO_CLEAR_REMARK})`,
            })
            .where(open)
            .returning(id);
        return rows.map((r) => Number(r.id));
    }
    // Already handled: closes now. Pending: stays, marked recovered.
    const closed = await db
        .update(alertEvents)
        .set({ clearTime: now, recoverTime: now })
        .where(and(open, eq(alertEvents.status, 1)))
        .returning(id);
    const pending = await db
        .update(alertEvents)
        .set({ recoverTime: now })
        .where(and(open, eq(alertEvents.status, 0)))
        .returning(id);
    return [...closed, ...pending].map((r) => Number(r.id));
}

/** Handles pending alerts with a remark; answers how many were handled (already handled ones are left as they are). */
export async function handleAlerts(db: Db, ids: number[], remark: string, now: Date): Promise<number> {
    if (!ids.length) return 0;
    const rows = await db
        .update(alertEvents)
        .set({
            status: 1,
            handleTime: now,
            remark,
            clearTime: sql`CASE WHEN ${alertEvents.recoverTime} IS NOT NULL OR ${alertEvents.ruleId} IS NULL THEN coalesce(${alertEvents.clearTime}, ${now.toISOString()}::timestamptz) ELSE ${alertEvents.clearTime} END`,
        })
        .where(and(inArray(alertEvents.id, ids), eq(alertEvents.status, 0)))
        .returning({ id: alertEvents.id });
    return rows.length;
}

/** (rule, device) pairs with an open alert whose condition holds, so a restarted engine does not open them again. */
export async function openPairs(db: Db): Promise<Array<{ ruleId: number; deviceId: number }>> {
    const rows = await db
        .select({ ruleId: alertEvents.ruleId, deviceId: alertEvents.deviceId })
        .from(alertEvents)
        .where(and(isNull(alertEvents.clearTime), isNotNull(alertEvents.ruleId), isNull(alertEvents.recoverTime)));
    return rows.map((r) => ({ ruleId: Number(r.ruleId), deviceId: Number(r.deviceId) }));
}
