// Runs the legacy mover (server/db/partitionMover.ts) against the database the parent test prepared, printing a line
// after each batch and pausing a little, so the parent can kill -9 this process in the middle of the move. With
// RETRY_BUSY set it runs as a server's mover does beside others: when another process holds the mover's lock it says
// `busy` and tries again, until the legacy tables are gone.
import { openDatabase } from '../../server/db/client';
import { legacyTables, moveLegacyRows } from '../../server/db/partitionMover';

const handle = await openDatabase(
    process.env.DATABASE_URL
        ? { databaseUrl: process.env.DATABASE_URL, pgSchema: process.env.PG_SCHEMA, migrate: false }
        : { pgliteDir: process.env.PGLITE_DIR, migrate: false },
);
let moved = 0;
for (;;) {
    const r = await moveLegacyRows(handle.db, {
        batch: Number(process.env.MOVE_BATCH),
        retentionDays: 30,
        onBatch: async (table, n) => {
            process.stdout.write(`batch ${table} ${n}\n`);
            await new Promise((resolve) => setTimeout(resolve, 30));
        },
    });
    moved += r.moved;
    if (!r.busy || !process.env.RETRY_BUSY) break;
    process.stdout.write('busy\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!(await legacyTables(handle.db)).length) break;
}
process.stdout.write(`done ${moved}\n`);
await handle.close();
