import { DAY_MS } from '../db/partitions';

/**
 * The time a device message is stored at. Alink lets a device say when a value was taken (`time`, epoch ms); the
 * platform keeps that time when it lies within [now - retention, now + 1 day], the days the message store keeps.
 * Outside it (a clock never set, a flood of back-dated posts) the message is stored at the server's time and the
 * device's own time is kept as data (DEVICE_TIME_KEY), so a device cannot make the store keep a day per message.
 */

/** The key the device's own time goes under in a message's data when it was not used. No identifier holds a `$`. */
export const DEVICE_TIME_KEY = '$deviceTime';

export interface MessageTime {
    /** The time to store the message at. */
    ts: Date;
    /** The device's time (ms) when it gave one that was not used. */
    deviceTime?: number;
}

/** Alink's `time` as ms: a number or a string of digits; undefined for anything else. */
export function alinkTime(raw: unknown): number | undefined {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    return Number.isFinite(n) ? n : undefined;
}

/** When a message whose device gave `raw` as its time is stored (see the module comment). */
export function messageTime(raw: unknown, retentionDays: number, now = Date.now()): MessageTime {
    const t = alinkTime(raw);
    if (t === undefined) return { ts: new Date(now) };
    if (t >= now - retentionDays * DAY_MS && t <= now + DAY_MS) return { ts: new Date(t) };
    return { ts: new Date(now), deviceTime: t };
}

/** A message's data with the device's unused time kept in it (the data itself when there is none). */
export function withDeviceTime(data: Record<string, unknown>, time: MessageTime): Record<string, unknown> {
    return time.deviceTime === undefined ? data : { ...data, [DEVICE_TIME_KEY]: time.deviceTime };
}
