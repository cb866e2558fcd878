import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from './client';

/**
 * Changes across server processes on one PostgreSQL (rules: docs/rules.md "Several processes"; forwarding flows): a
 * process that changes what the others keep in memory announces it with NOTIFY on the feature's channel; every other
 * process LISTENs and loads again at once. Without DATABASE_URL (PGlite, one process) nothing crosses processes. While
 * the LISTEN connection is down it is retried, and `onChange` runs again when it comes back (a change may have been
 * missed).
 */

export const RULES_CHANNEL = 'iot_rules_changed';
export const FORWARD_CHANNEL = 'iot_forward_changed';

export interface Changes {
    /** Tell the other processes that something changed. */
    announce(): Promise<void>;
    close(): Promise<void>;
}

export function listenForChanges(
    db: Db,
    databaseUrl: string | undefined,
    channel: string,
    onChange: () => void,
    log: (message: string, err: unknown) => void,
): Changes {
    if (!databaseUrl) return { announce: async () => undefined, close: async () => undefined };
    /** This process's own announcements come back to it too: they are recognised and skipped. */
    const self = randomBytes(8).toString('hex');
    let closed = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let connectedOnce = false;

    const again = (ms: number) => {
        if (closed) return;
        retry = setTimeout(() => void connect(), ms);
        retry.unref();
    };

    async function connect() {
        const c = new pg.Client({ connectionString: databaseUrl });
        c.on('notification', (n) => {
            if (n.channel === channel && n.payload !== self) onChange();
        });
        c.on('error', () => {
            if (client === c) client = undefined;
            c.end().catch(() => undefined);
            again(1000);
        });
        try {
            await c.connect();
            await c.query(`LISTEN ${channel}`);
            if (closed) return void (await c.end());
            client = c;
            if (connectedOnce) onChange();
            connectedOnce = true;
        } catch (err) {
            log(`变更通知连接失败（稍后重试） / LISTEN ${channel} failed:`, err);
            c.end().catch(() => undefined);
            again(5000);
        }
    }
    void connect();

    return {
        async announce() {
            await db.execute(sql`SELECT pg_notify(${channel}, ${self})`);
        },
        async close() {
            closed = true;
            clearTimeout(retry);
            await client?.end().catch(() => undefined);
        },
    };
}
