import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from '../db/client';

/**
 * Rule changes across server processes on one PostgreSQL (docs/rules.md "Several processes"): a process that
 * creates, edits, deletes, enables or disables a rule announces it with NOTIFY; every other process LISTENs and loads
 * its rules again at once. Without DATABASE_URL (PGlite, one process) nothing crosses processes. While the LISTEN
 * connection is down it is retried, and the rules are loaded again when it comes back (a change may have been missed).
 */

export const RULES_CHANNEL = 'iot_rules_changed';

export interface RuleChanges {
    /** Tell the other processes that the rules changed. */
    announce(): Promise<void>;
    close(): Promise<void>;
}

export function listenForRuleChanges(
    db: Db,
    databaseUrl: string | undefined,
    onChange: () => void,
    log: (message: string, err: unknown) => void,
): RuleChanges {
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
            if (n.channel === RULES_CHANNEL && n.payload !== self) onChange();
        });
        c.on('error', () => {
            if (client === c) client = undefined;
            c.end().catch(() => undefined);
            again(1000);
        });
        try {
            await c.connect();
            await c.query(`LISTEN ${RULES_CHANNEL}`);
            if (closed) return void (await c.end());
            client = c;
            if (connectedOnce) onChange();
            connectedOnce = true;
        } catch (err) {
            log('规则变更通知连接失败（稍后重试） / rule change LISTEN failed:', err);
            c.end().catch(() => undefined);
            again(5000);
        }
    }
    void connect();

    return {
        async announce() {
            await db.execute(sql`SELECT pg_notify(${RULES_CHANNEL}, ${self})`);
        },
        async close() {
            closed = true;
            clearTimeout(retry);
            await client?.end().catch(() => undefined);
        },
    };
}
