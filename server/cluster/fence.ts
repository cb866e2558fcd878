import { sql, type SQL } from 'drizzle-orm';

/**
 * A member's fencing token (migration 0039): its node id, the incarnation it registered under and its lease. A write
 * that names a token is refused by the database (cluster_fence raises) once that incarnation is gone or its heartbeat
 * is older than the lease, whatever the member's own clock says: a process resumed after SIGSTOP learns it was fenced
 * only at its next timer, while the statements it had under way reach the database first.
 */
export interface FenceToken {
    nodeId: string;
    incarnation: string;
    leaseMs: number;
}

/** The SQLSTATE cluster_fence raises with. */
const FENCED_SQLSTATE = 'P0901';

/** A derived table of one row that raises when `token` no longer holds (to be joined into the guarded statement). */
export const fenceSql = (token: FenceToken): SQL =>
    sql`(SELECT cluster_fence(${token.nodeId}, ${token.incarnation}, ${Math.floor(token.leaseMs)}::int)) AS fence`;

/** Whether a failed statement was refused by the fence (node-postgres and PGlite errors, wrapped or not). */
export function isFenceRefusal(err: unknown): boolean {
    for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
        if (e.code === FENCED_SQLSTATE) return true;
        e = e.cause as typeof e;
    }
    return false;
}
