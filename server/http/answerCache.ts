import type { MiddlewareHandler } from 'hono';
import { dataVersionOf } from '../db/dataVersion';
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
    version: number;
    at: number;
    type: string;
    answer: CompressedAnswer;
}

/**
 * GET answers of CACHED_READS kept per user and URL while the data version (server/db/dataVersion.ts) stays the same:
 * any write in this process moves the version on, so an answer is only served again when nothing could have changed
 * it since it was computed. Identical requests that arrive while one is being computed wait for it and share its
 * answer (they arrived before any later write finished). The answer's gzipped bytes are kept with it. A database
 * without a data version (PostgreSQL, which other processes may write) is not cached.
 */
export function answerCache(db: Db, paths: Set<string> = CACHED_READS): MiddlewareHandler<AppEnv> {
    const version = dataVersionOf(db);
    const entries = new Map<string, Entry>();
    const flights = new Map<string, { version: number; done: Promise<Entry | undefined> }>();
    const send = async (c: Parameters<MiddlewareHandler<AppEnv>>[0], entry: Entry) => {
        const headers: Record<string, string> = { 'content-type': entry.type, vary: 'Accept-Encoding' };
        if (!/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return c.body(entry.answer.text, 200, headers);
        // The compress middleware leaves answers that carry a Content-Encoding alone.
        const bytes = new Uint8Array(await entry.answer.gzipped());
        return c.body(bytes, 200, { ...headers, 'content-encoding': 'gzip' });
    };
    return async (c, next) => {
        if (!version || c.req.method !== 'GET' || !paths.has(c.req.path)) return next();
        const url = new URL(c.req.url);
        const key = `${c.get('user').id} ${url.pathname}${url.search}`;
        const now = version();
        const hit = entries.get(key);
        if (hit && hit.version === now && Date.now() - hit.at < ANSWER_MAX_AGE_MS) return send(c, hit);
        const flight = flights.get(key);
        if (flight && flight.version === now) {
            const shared = await flight.done;
            if (shared) return send(c, shared);
            return next();
        }
        let settle!: (entry: Entry | undefined) => void;
        const done = new Promise<Entry | undefined>((resolve) => (settle = resolve));
        flights.set(key, { version: now, done });
        let entry: Entry | undefined;
        try {
            await next();
            const type = c.res.headers.get('content-type') ?? '';
            if (c.res.status === 200 && type.includes('application/json') && !c.res.headers.has('content-encoding')) {
                entry = {
                    version: now,
                    at: Date.now(),
                    type,
                    answer: new CompressedAnswer(await c.res.clone().text()),
                };
                // Kept only when no write finished while it was computed (it may not show that write).
                if (version() === now) {
                    if (entries.size >= MAX_ENTRIES) entries.clear();
                    entries.set(key, entry);
                }
            }
        } finally {
            if (flights.get(key)?.done === done) flights.delete(key);
            settle(entry);
        }
        if (entry) {
            // The route's answer is final once it returned: replace it, rather than merging headers into it.
            c.res = undefined;
            c.res = await send(c, entry);
        }
    };
}
