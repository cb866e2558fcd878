import { promisify } from 'node:util';
import { gzip as gzipCallback, gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { COMPRESS_THRESHOLD, GZIP_AT_ONCE_MAX } from '../http/compress';
import { jsonText } from '../http/envelope';

const gzip = promisify(gzipCallback);

/**
 * A JSON answer kept as text and, once a client accepting gzip asks, as gzipped bytes too: 11 MB of map points take
 * a quarter of a second to compress, so that happens once per answer, not once per request. Large answers are
 * compressed on libuv's thread pool, off the event loop; small ones at once (the hop to the pool costs more than the
 * work), and those under COMPRESS_THRESHOLD bytes not at all.
 */
export class CompressedAnswer {
    private gz?: Promise<Buffer>;
    /** Whether the answer is large enough to be sent gzipped. */
    readonly worthCompressing: boolean;

    constructor(readonly text: string) {
        this.worthCompressing = Buffer.byteLength(text) >= COMPRESS_THRESHOLD;
    }

    gzipped(): Promise<Buffer> {
        this.gz ??=
            this.text.length <= GZIP_AT_ONCE_MAX
                ? Promise.resolve(gzipSync(this.text, { level: 6 }))
                : gzip(this.text, { level: 6 });
        return this.gz;
    }
}

/** How long an unchanged map answer is served without asking the database again, at most. */
export const DEVICE_MAP_MAX_AGE_MS = 30_000;

/** JSON text answered as is, or from its cached gzipped bytes when the client takes gzip and it is worth it. */
export async function jsonAnswer(c: Context, answer: CompressedAnswer, type = 'application/json; charset=UTF-8') {
    const headers: Record<string, string> = { 'content-type': type, vary: 'Accept-Encoding' };
    if (!answer.worthCompressing || !/\bgzip\b/.test(c.req.header('accept-encoding') ?? ''))
        return jsonText(c, answer.text, 200, headers);
    // The compress middleware leaves answers that carry a Content-Encoding alone.
    return c.body(new Uint8Array(await answer.gzipped()), 200, { ...headers, 'content-encoding': 'gzip' });
}

/** The value of device_map_version (migration 0010): any statement that could change the map moves it on. */
export async function deviceMapVersion(db: Db): Promise<string> {
    const result = (await db.execute(sql`SELECT last_value, is_called FROM device_map_version`)) as unknown as {
        rows: Array<{ last_value: string | number; is_called: boolean }>;
    };
    const [row] = result.rows;
    return `${row.last_value}:${row.is_called}`;
}

/**
 * The whole-map answer of GET /api/device/queryLonLatList, kept per server process. 100,000 located devices take
 * half a second to turn into 11 MB of JSON; operators opening the dashboard get the same text back as long as no
 * device was added, removed, moved, renamed or changed status (the version says so, across every process sharing the
 * database). The version is read before building, so a change during the build makes the next call rebuild. A write
 * still uncommitted while a build runs can be missed; the age limit bounds that to DEVICE_MAP_MAX_AGE_MS.
 */
export class DeviceMapCache {
    private entry?: { version: string; answer: CompressedAnswer; at: number };
    private pending?: { version: string; promise: Promise<CompressedAnswer> };

    constructor(
        private readonly maxAgeMs = DEVICE_MAP_MAX_AGE_MS,
        private readonly now: () => number = () => Date.now(),
    ) {}

    async get(db: Db, build: () => Promise<string>): Promise<string> {
        return (await this.answer(db, build)).text;
    }

    /** The cached answer with its gzipped bytes (made on first use and kept with it). */
    async answer(db: Db, build: () => Promise<string>): Promise<CompressedAnswer> {
        const version = await deviceMapVersion(db);
        const entry = this.entry;
        if (entry && entry.version === version && this.now() - entry.at < this.maxAgeMs) return entry.answer;
        // Callers arriving while the same version is being built share that build.
        if (this.pending?.version === version) return this.pending.promise;
        const at = this.now();
        const promise = build().then((text) => {
            const answer = new CompressedAnswer(text);
            this.entry = { version, answer, at };
            return answer;
        });
        this.pending = { version, promise };
        try {
            return await promise;
        } finally {
            if (this.pending?.promise === promise) this.pending = undefined;
        }
    }
}
