import type { Context, MiddlewareHandler, Next } from 'hono';
import { tableVersionsOf } from '../db/dataVersion';
import type { Db } from '../db/client';
import type { AppEnv } from '../deps';
import { CompressedAnswer, jsonAnswer } from './compress';
import { jsonTextOf } from './envelope';

/**
 * The busiest reads of the console (device pages and detail, product, project and group lists, the dashboard's
 * counts): answered from the database, they cost a few statements each on PGlite's one connection, and the same
 * pages are asked for again and again by every open console.
 */
export const CACHED_READS = new Set([
    '/api/device/list',
    '/api/device/detail',
    '/api/device/total',
    '/api/device/statistics',
    '/api/product',
    '/api/dashboard/count',
    '/api/project/list',
    '/api/group/list',
]);

/** An answer is served again at most this long, even without any write (a bound for what no statement shows). */
export const ANSWER_MAX_AGE_MS = 5_000;
const MAX_ENTRIES = 2_000;

interface Entry {
    /** The data sequence number when it was computed, and the tables it was computed from. */
    seq: number;
    tables: Set<string>;
    at: number;
    type: string;
    answer: CompressedAnswer;
}

type Answer = Promise<Entry | undefined>;

/** The computation of one key under way, and the one that will start when it ends (for requests that came since). */
interface Slot {
    running: Answer;
    queued?: { answer: Answer; settle: (entry: Entry | undefined) => void };
}

/**
 * GET answers of CACHED_READS kept per user, project scope and URL while none of the tables they were computed from
 * was written (server/db/dataVersion.ts): a device created or deleted drops the device pages and counts, not the
 * product, project or group lists that read no device. An answer is only served again when nothing could have
 * changed it since it was computed. The answer's gzipped bytes are kept with it. A database without this record
 * (PostgreSQL, which other processes may write) is not cached.
 *
 * At most one computation per key runs at a time: requests that come while one runs wait for it and take its answer
 * if none of its tables was written since it started; otherwise one computation starts when it ends, for all of
 * them (it started after each of them came, so it shows every write they could have seen). Under a stream of writes
 * a page asked for by many clients costs the database one computation per computation time, not one per request.
 */
export function answerCache(db: Db, paths: Set<string> = CACHED_READS): MiddlewareHandler<AppEnv> {
    const tables = tableVersionsOf(db);
    const entries = new Map<string, Entry>();
    const slots = new Map<string, Slot>();
    const fresh = (entry: Entry | undefined): entry is Entry =>
        !!entry && !tables!.changedSince(entry.tables, entry.seq) && Date.now() - entry.at < ANSWER_MAX_AGE_MS;
    const send = (c: Context<AppEnv>, entry: Entry) => jsonAnswer(c, entry.answer, entry.type);
    /** The route's answer as an entry (undefined when it is not a 200 JSON answer), kept while still fresh. */
    const compute = async (c: Context<AppEnv>, next: Next, key: string): Answer => {
        const seq = tables!.seq();
        const read = await tables!.record(() => next());
        const type = c.res.headers.get('content-type') ?? '';
        if (c.res.status !== 200 || !type.includes('application/json') || c.res.headers.has('content-encoding'))
            return undefined;
        const entry = {
            seq,
            tables: read.tables,
            at: Date.now(),
            type,
            // The envelope's text when the route answered with it; else the body (the answer is replaced below).
            answer: new CompressedAnswer(jsonTextOf(c.res) ?? (await c.res.text())),
        };
        // Kept only when no write to its tables finished while it was computed (it may not show that write).
        if (fresh(entry)) {
            if (entries.size >= MAX_ENTRIES) entries.clear();
            entries.set(key, entry);
        }
        return entry;
    };
    /** Ends the running computation of a key: the queued one (if any) becomes the running one. */
    const finish = (key: string, slot: Slot) => {
        if (slot.queued) {
            slot.running = slot.queued.answer;
            slot.queued = undefined;
        } else slots.delete(key);
    };
    return async (c, next) => {
        if (!tables || c.req.method !== 'GET' || !paths.has(c.req.path)) return next();
        await tables.ready();
        const user = c.get('user');
        const url = c.req.url;
        // The scope is part of the key: the answer is what the route computes for this session's projects.
        const scope = user.admin ? '*' : user.projectIds.join(',');
        const key = `${user.id} ${scope} ${url.slice(url.indexOf('/', url.indexOf('//') + 2))}`;
        const hit = entries.get(key);
        if (fresh(hit)) return send(c, hit);
        let slot = slots.get(key);
        if (slot?.queued) {
            // The queued computation starts after this request came: its answer is this request's answer.
            const entry = await slot.queued.answer;
            return entry ? send(c, entry) : next();
        }
        let settle: (entry: Entry | undefined) => void;
        if (slot) {
            const answer = new Promise<Entry | undefined>((resolve) => (settle = resolve));
            slot.queued = { answer, settle: settle! };
            const previous = await slot.running;
            if (fresh(previous)) {
                finish(key, slot);
                settle!(previous);
                return send(c, previous);
            }
        } else {
            slot = { running: new Promise<Entry | undefined>((resolve) => (settle = resolve)) };
            slots.set(key, slot);
        }
        let entry: Entry | undefined;
        try {
            entry = await compute(c, next, key);
        } finally {
            finish(key, slot);
            settle!(entry);
        }
        if (entry) {
            // The route's answer is final once it returned: replace it, rather than merging headers into it.
            c.res = undefined;
            c.res = await send(c, entry);
        }
    };
}
