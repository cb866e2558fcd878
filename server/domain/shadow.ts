import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { deviceShadows, type ShadowMetadata } from '../db/schema';
import { SHADOW_MAX_ATTRIBUTES, SHADOW_MAX_BYTES } from '../../schemas/deviceShadow';

/**
 * The device shadow (设备影子) as Alibaba Cloud IoT keeps it: per device one JSON document of the state the device
 * reported, the state the cloud desires, each key's update time (metadata, epoch seconds) and a version. A change
 * names a version larger than the document's (else it is a version conflict, 409); version -1 clears the document
 * first and leaves it at version 0; a change without a version takes the next one. The MQTT side (device requests,
 * replies, `control` pushes) is server/mqtt/shadow.ts; the console's is server/routes/deviceShadow.ts.
 */

/** Alibaba's limits: a document of at most 16 KB, at most 128 reported attributes (schemas/deviceShadow.ts). */
export { SHADOW_MAX_ATTRIBUTES, SHADOW_MAX_BYTES };

/** Alibaba's value for "delete this": the string "null" (a JSON null deletes too). */
export const NULL_VALUE = 'null';

export interface Shadow {
    reported: Record<string, unknown>;
    desired: Record<string, unknown>;
    metadata: ShadowMetadata;
    version: number;
    updateTime: Date;
}

/** What a change does to the document (one section each; `reset` is version -1's clear). */
export type ShadowChange =
    | { kind: 'reported'; set: Record<string, unknown>; clearDesired?: boolean }
    | { kind: 'desired'; replace: Record<string, unknown> }
    | { kind: 'clearDesired' }
    | { kind: 'deleteReported'; keys: string[] | 'all' };

/** Why a change was refused: Alibaba's shadow error code and its message. */
export class ShadowRefusal extends Error {
    constructor(
        readonly code: 409 | 408 | 400,
        message: string,
    ) {
        super(message);
        this.name = 'ShadowRefusal';
    }
}

export const emptyShadow = (): Shadow => ({
    reported: {},
    desired: {},
    metadata: { reported: {}, desired: {} },
    version: 0,
    updateTime: new Date(0),
});

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

const isDeletion = (v: unknown) => v === null || v === NULL_VALUE;

/** The document after `change` at `now` (the input is not changed). */
export function applyChange(doc: Shadow, change: ShadowChange, now: Date): Shadow {
    const next: Shadow = {
        reported: { ...doc.reported },
        desired: { ...doc.desired },
        metadata: { reported: { ...doc.metadata.reported }, desired: { ...doc.metadata.desired } },
        version: doc.version,
        updateTime: now,
    };
    const stamp = { timestamp: seconds(now) };
    switch (change.kind) {
        case 'reported':
            for (const [k, v] of Object.entries(change.set)) {
                if (isDeletion(v)) {
                    delete next.reported[k];
                    delete next.metadata.reported[k];
                } else {
                    next.reported[k] = v;
                    next.metadata.reported[k] = stamp;
                }
            }
            if (change.clearDesired) next.desired = next.metadata.desired = {};
            break;
        case 'desired':
            next.desired = { ...change.replace };
            next.metadata.desired = Object.fromEntries(Object.keys(change.replace).map((k) => [k, stamp]));
            break;
        case 'clearDesired':
            next.desired = {};
            next.metadata.desired = {};
            break;
        case 'deleteReported':
            for (const k of change.keys === 'all' ? Object.keys(next.reported) : change.keys) {
                delete next.reported[k];
                delete next.metadata.reported[k];
            }
            break;
    }
    return next;
}

/** The version a change leaves, or the refusal: larger than the current one, -1 (reset to 0), or absent (next). */
export function nextVersion(current: number, requested: number | undefined): number {
    if (requested === undefined) return current + 1;
    if (requested === -1) return 0;
    if (requested > current) return requested;
    throw new ShadowRefusal(409, `影子版本冲突：请求的版本 ${requested} 须大于当前版本 ${current}`);
}

/** The limits a stored document keeps (16 KB, 128 reported attributes). */
export function checkLimits(doc: Shadow) {
    if (Object.keys(doc.reported).length > SHADOW_MAX_ATTRIBUTES)
        throw new ShadowRefusal(408, `影子 reported 属性个数超过 ${SHADOW_MAX_ATTRIBUTES} 个`);
    const bytes = Buffer.byteLength(JSON.stringify({ state: { reported: doc.reported, desired: doc.desired } }));
    if (bytes > SHADOW_MAX_BYTES) throw new ShadowRefusal(400, `影子文档超过 16KB（${bytes} 字节）`);
}

const columns = {
    reported: deviceShadows.reported,
    desired: deviceShadows.desired,
    metadata: deviceShadows.metadata,
    version: deviceShadows.version,
    updateTime: deviceShadows.updateTime,
};

/** The device's shadow, or undefined when it has none. */
export async function loadShadow(db: Db | Tx, deviceId: number): Promise<Shadow | undefined> {
    const [row] = await db.select(columns).from(deviceShadows).where(eq(deviceShadows.deviceId, deviceId));
    return row;
}

/**
 * Applies `change` with the requested version, in one transaction holding the row: the stored document, or a
 * ShadowRefusal with nothing changed. A device that no longer exists makes the insert fail (its foreign key).
 */
export async function changeShadow(
    db: Db,
    deviceId: number,
    change: ShadowChange,
    requestedVersion: number | undefined,
    now = new Date(),
): Promise<Shadow> {
    return db.transaction(async (tx) => {
        const [held] = await tx
            .select(columns)
            .from(deviceShadows)
            .where(eq(deviceShadows.deviceId, deviceId))
            .for('update');
        const current = held ?? emptyShadow();
        const version = nextVersion(current.version, requestedVersion);
        const base = requestedVersion === -1 ? emptyShadow() : current;
        const doc = { ...applyChange(base, change, now), version };
        checkLimits(doc);
        const values = {
            reported: doc.reported,
            desired: doc.desired,
            metadata: doc.metadata,
            version,
            updateTime: now,
        };
        await tx
            .insert(deviceShadows)
            .values({ deviceId, ...values })
            .onConflictDoUpdate({ target: deviceShadows.deviceId, set: values });
        return doc;
    });
}

/** The document as the device and the API see it: state, metadata, version, timestamp (epoch seconds). */
export function shadowBody(doc: Shadow) {
    return {
        state: { reported: doc.reported, desired: doc.desired },
        metadata: doc.metadata,
        version: doc.version,
        timestamp: seconds(doc.updateTime),
    };
}
