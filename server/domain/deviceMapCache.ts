import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { CompressedAnswer } from '../http/compress';

/** How long an unchanged map answer is served without asking the database again, at most. */
export const DEVICE_MAP_MAX_AGE_MS = 30_000;

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
