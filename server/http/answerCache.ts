import type { MiddlewareHandler } from 'hono';
import { tableVersionsOf } from '../db/dataVersion';
import type { Db } from '../db/client';
import type { AppEnv } from '../deps';
import { CompressedAnswer } from '../domain/deviceMapCache';

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

/**
 * GET answers of CACHED_READS kept per user, project scope and URL while none of the tables they were computed from
 * was written (server/db/dataVersion.ts): a device created or deleted drops the device pages and counts, not the
 * product, project or group lists that read no device. An answer is only served again when nothing could have
 * changed it since it was computed. Identical requests that arrive while one is being computed wait for it and share
 * its answer when no write to its tables finished meanwhile. The answer's gzipped bytes are kept with it. A database
 * without this record (PostgreSQL, which other processes may write) is not cached.
 */
export function answerCache(db: Db, paths: Set<string> = CACHED_READS): MiddlewareHandler<AppEnv> {
    const tables = tableVersionsOf(db);
    const entries = new Map<string, Entry>();
    const flights = new Map<string, Promise<Entry | undefined>>();
    const fresh = (entry: Entry | undefined): entry is Entry =>
        !!entry && !tables!.changedSince(entry.tables, entry.seq) && Date.now() - entry.at < ANSWER_MAX_AGE_MS;
    const send = async (c: Parameters<MiddlewareHandler<AppEnv>>[0], entry: Entry) => {
        const headers: Record<string, string> = { 'content-type': entry.type, vary: 'Accept-Encoding' };
        if (!/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return c.body(entry.answer.text, 200, headers);
        // The compress middleware leaves answers that carry a Content-Encoding alone.
        const bytes = new Uint8Array(await entry.answer.gzipped());
        return c.body(bytes, 200, { ...headers, 'content-encoding': 'gzip' });
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
        const flight = flights.get(key);
        if (flight) {
            // Computed from a start before this request came: shared only when no write to its tables came since.
            const shared = await flight;
            if (fresh(shared)) return send(c, shared);
            return next();
        }
        let settle!: (entry: Entry | undefined) => void;
        const done = new Promise<Entry | undefined>((resolve) => (settle = resolve));
        flights.set(key, done);
        let entry: Entry | undefined;
        try {
            const seq = tables.seq();
            const read = await tables.record(() => next());
            const type = c.res.headers.get('content-type') ?? '';
            if (c.res.status === 200 && type.includes('application/json') && !c.res.headers.has('content-encoding')) {
                entry = {
                    seq,
                    tables: read.tables,
                    at: Date.now(),
                    type,
                    answer: new CompressedAnswer(await c.res.clone().text()),
                };
                // Kept only when no write to its tables finished while it was computed (it may not show that write).
                if (fresh(entry)) {
                    if (entries.size >= MAX_ENTRIES) entries.clear();
                    entries.set(key, entry);
                }
            }
        } finally {
            if (flights.get(key) === done) flights.delete(key);
            settle(entry);
        }
        if (entry) {
            // The route's answer is final once it returned: replace it, rather than merging headers into it.
            c.res = undefined;
            c.res = await send(c, entry);
        }
    };
}
