import type { MessageCopies } from '../amqp/copies';
import type { ScriptAccess } from '../scripts/calls';
import { retentionDaysFromEnv } from '../db/partitions';
import type { Directory, DeviceEntry } from './directory';
import type { ShadowStore } from './shadow';
import type { MessageWrite, MessageWriter } from './writer';

/**
 * The uplink's state and its one way to keep a message: written with its subscription copies by the batch writer,
 * then told to the listeners (rules). The uplink's promise, which the broker's PUBACK waits for, settles with that
 * write: it resolves once the message row and its copies are committed, and rejects, with nothing of them stored,
 * when they could not be.
 */

/** Alink reply codes: 200 success, 460 bad request parameters, 500 the platform failed. */
export const ALINK = { OK: 200, BAD_PARAMS: 460, FAILED: 500 } as const;

/**
 * A message the platform accepted from a device after checking it against the thing model: what rules and
 * server-side subscriptions act on. `payload` is the device's bytes as they came.
 */
export interface AcceptedMessage {
    device: DeviceEntry;
    topic: string;
    kind: 'property' | 'event';
    /** The event's identifier (kind 'event'). */
    identifier?: string;
    /** Property values (kind 'property') or the event's output values (kind 'event'). */
    values: Record<string, unknown>;
    /** When the message is stored: the device's time when within the retention window, else the arrival time. */
    ts: Date;
    /** The Alink request id the device sent ('' when none). */
    requestId: string;
    payload: Buffer;
}

/**
 * A feature's own device topics (OTA: /ota/device/..., /sys/.../thing/ota/...): the handler answers a promise when the
 * topic is its own, undefined when not.
 */
export type TopicHandler = (device: DeviceEntry, topic: string, payload: Buffer) => Promise<void> | undefined;

/** Makes a message's subscription copies (the AMQP queue's), stored with it. */
export type Copier = (message: AcceptedMessage) => MessageCopies | undefined;

/** A device's tags as the platform keeps them (server/domain/tags.ts): what `thing/deviceinfo/*` changes. */
export interface DeviceTagStore {
    /** Sets each key to its value (adding the keys the device lacks); rejects with the reason when refused. */
    update(deviceId: number, pairs: Array<{ key: string; value: string }>): Promise<void>;
    /** Deletes the device's tags of these keys (keys it lacks are no error). */
    remove(deviceId: number, keys: string[]): Promise<void>;
}

export interface UplinkDeps {
    directory: Directory;
    writer: MessageWriter;
    /** The device tags (thing/deviceinfo/update and delete); without it those requests are answered 500. */
    tags?: DeviceTagStore;
    /** Device shadows (/shadow/update); without it those requests are answered 500. */
    shadow?: ShadowStore;
    /** Publishes to `device`'s topic as the platform. */
    publish: (topic: string, payload: string | Buffer, qos: 0 | 1, device: DeviceEntry) => Promise<void>;
    /** 透传/自定义 products' data-parsing scripts (server/mqtt/rawData.ts); without it raw messages are kept raw. */
    scripts?: ScriptAccess;
    log: (message: string) => void;
    /** Days messages are kept (LOG_RETENTION_DAYS): a device time older than this is not used as the message's. */
    retentionDays?: number;
}

export interface UplinkState extends UplinkDeps {
    retentionDays: number;
    listeners: Array<(device: DeviceEntry, topic: string, payload: Buffer) => void>;
    topicHandlers: TopicHandler[];
    acceptedListeners: Array<(message: AcceptedMessage) => unknown>;
    copiers: Copier[];
}

export function uplinkState(deps: UplinkDeps): UplinkState {
    return {
        ...deps,
        retentionDays: deps.retentionDays ?? retentionDaysFromEnv(),
        listeners: [],
        topicHandlers: [],
        acceptedListeners: [],
        copiers: [],
    };
}

/** The copies of `message` every copier makes (one copier, the AMQP queue, in practice). */
export function copiesOf(s: UplinkState, message: AcceptedMessage): MessageCopies | undefined {
    let copies: MessageCopies | undefined;
    for (const c of s.copiers) {
        const made = c(message);
        if (!made?.rows.length) continue;
        if (!copies) copies = made;
        else if (copies.target === made.target)
            copies = { target: copies.target, rows: [...copies.rows, ...made.rows] };
        else throw new Error('one message may have copies for one queue only');
    }
    return copies;
}

/** Tells the listeners (rules): each on its own, a listener's failure is its own. */
export function tellAccepted(s: UplinkState, message: AcceptedMessage): void {
    for (const l of s.acceptedListeners) {
        try {
            const wait = l(message);
            if (wait instanceof Promise) wait.catch(() => undefined);
        } catch {
            // the message is stored and answered regardless
        }
    }
}

/**
 * Stores an accepted message (`write`: its row) with its subscription copies in one statement, then tells the
 * listeners. A device's resend of a message stored already is neither stored nor told again. Rejects when the
 * statement failed: then neither the row nor a copy is stored.
 */
export async function storeAccepted(s: UplinkState, message: AcceptedMessage, write: MessageWrite): Promise<void> {
    const copies = copiesOf(s, message);
    const outcome = await s.writer.write(copies ? { ...write, copies } : write);
    if (outcome !== 'resent') tellAccepted(s, message);
}

/** One row of a post that stores several (a batch or history post), and what rules hear of it (none: history). */
export interface GroupRow {
    write: MessageWrite;
    accepted?: AcceptedMessage;
}

/**
 * Stores the rows of one post in one statement, all or none, with the subscription copies of `copiesFrom` (made once
 * for the whole post, on its first row), then tells the listeners each accepted row. A resend of a post stored
 * already is neither stored nor told again. Rejects when the statement failed: then nothing of the post is stored.
 */
export async function storeGroup(s: UplinkState, rows: GroupRow[], copiesFrom?: AcceptedMessage): Promise<void> {
    if (!rows.length) return;
    const copies = copiesFrom && copiesOf(s, copiesFrom);
    const writes = rows.map((r) => r.write);
    if (copies) writes[0] = { ...writes[0], copies };
    const outcome = await s.writer.writeAll(writes);
    if (outcome === 'resent') return;
    for (const r of rows) if (r.accepted) tellAccepted(s, r.accepted);
}
