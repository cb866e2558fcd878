// Runs the legacy mover (server/db/partitionMover.ts) against the database the parent test prepared, printing a line
// after each batch and pausing a little, so the parent can kill -9 this process in the middle of the move.
import { openDatabase } from '../../server/db/client';
import { moveLegacyRows } from '../../server/db/partitionMover';

const handle = await openDatabase(
    process.env.DATABASE_URL
        ? { databaseUrl: process.env.DATABASE_URL, pgSchema: process.env.PG_SCHEMA, migrate: false }
        : { pgliteDir: process.env.PGLITE_DIR, migrate: false },
);
const r = await moveLegacyRows(handle.db, {
    batch: Number(process.env.MOVE_BATCH),
    retentionDays: 30,
    onBatch: async (table, moved) => {
        process.stdout.write(`batch ${table} ${moved}\n`);
        await new Promise((resolve) => setTimeout(resolve, 30));
    },
});
process.stdout.write(`done ${r.moved}\n`);
await handle.close();
