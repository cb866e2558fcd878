import { isClosedDatabaseError } from './closed';
import { sql } from 'drizzle-orm';
import type { Db } from './client';

export interface Maintenance {
    /** Reports rows written to devices in bulk (import, batch registration); enough of them schedule a VACUUM. */
    noteDeviceWrites(rows: number): void;
    /** Waits for a scheduled or running pass (tests and shutdown). */
    settle(): Promise<void>;
}

export interface MaintenanceOptions {
    /** Rows written since the last pass that make the next one due. */
    threshold?: number;
    /** Quiet time after the last bulk write before the pass runs, so back-to-back imports are not slowed by it. */
    delayMs?: number;
    logError?: (message: string, err: unknown) => void;
}

/**
 * PGlite is PostgreSQL in single-user mode: no autovacuum worker ever runs. Without it a table filled by imports has
 * no planner statistics (so a product-filtered page can be planned as "read every row and sort") and no visibility
 * map (so index-only scans still visit the table). This does the part of autovacuum the device lists need: after
 * enough bulk writes, one VACUUM (ANALYZE) of devices. On PostgreSQL autovacuum does it too; an extra pass is harmless.
 */
export function createMaintenance(db: Db, opts: MaintenanceOptions = {}): Maintenance {
    const threshold = opts.threshold ?? 10_000;
    const delayMs = opts.delayMs ?? 2_000;
    let pending = 0;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> = Promise.resolve();

    const run = () => {
        timer = undefined;
        pending = 0;
        running = running
            .then(() => db.execute(sql`VACUUM (ANALYZE) devices`))
            .then(
                () => undefined,
                // A database closed meanwhile (tests, shutdown) is not worth a stack trace; anything else is logged.
                (err: unknown) => {
                    if (!isClosedDatabaseError(err)) opts.logError?.('VACUUM devices 失败', err);
                },
            );
    };

    return {
        noteDeviceWrites(rows) {
            pending += rows;
            if (pending < threshold) return;
            if (timer) clearTimeout(timer);
            timer = setTimeout(run, delayMs);
            timer.unref();
        },
        async settle() {
            if (timer) {
                clearTimeout(timer);
                run();
            }
            await running;
        },
    };
}
