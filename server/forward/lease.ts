import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';

/**
 * One process sends a route at a time: it claims the route (owner, lease_until) when the route has no owner or its
 * lease ran out, renews the lease as it moves the position on (and while idle: server/forward/route.ts), and every
 * move names it as the owner: a process that was paused past its lease while another took the route over moves
 * nothing (its last batch may have been sent twice: at least once), sees it lost the route, and stops sending it.
 */

export interface LeaseHolder {
    db: Db;
    owner: string;
    leaseMs: number;
}

/** The route's position when this process now holds it, undefined when another process does. */
export async function claimRoute(h: LeaseHolder, routeId: number): Promise<number | undefined> {
    const [row] = rowsOf<{ position: string | number }>(
        await h.db.execute(sql`
            UPDATE forward_routes SET owner = ${h.owner}, lease_until = now() + ${`${h.leaseMs} milliseconds`}::interval
            WHERE id = ${routeId} AND (owner IS NULL OR owner = ${h.owner} OR lease_until < now())
            RETURNING position`),
    );
    return row ? Number(row.position) : undefined;
}

export interface Progress {
    position: number;
    selected?: number;
    sent?: number;
    dead?: number;
    dropped?: number;
    failed?: number;
    /** The last failure's message (kept until the next failure). */
    error?: string;
}

/** Moves the route on (and renews the lease); false when this process no longer holds it. */
export async function moveRoute(h: LeaseHolder, routeId: number, p: Progress): Promise<boolean> {
    const error = p.error === undefined ? sql`last_error` : sql`${p.error.slice(0, 1000)}`;
    const errorTime = p.error === undefined ? sql`last_error_time` : sql`now()`;
    const rows = rowsOf(
        await h.db.execute(sql`
            UPDATE forward_routes SET
                position = ${p.position}, selected = selected + ${p.selected ?? 0}, sent = sent + ${p.sent ?? 0},
                dead = dead + ${p.dead ?? 0},
                dropped = dropped + ${p.dropped ?? 0}, failed = failed + ${p.failed ?? 0},
                last_error = ${error}, last_error_time = ${errorTime},
                lease_until = now() + ${`${h.leaseMs} milliseconds`}::interval
            WHERE id = ${routeId} AND owner = ${h.owner}
            RETURNING id`),
    );
    return rows.length > 0;
}

/** Gives the route up (a stopped flow, a closing process): another process may take it at once. */
export async function releaseRoute(h: LeaseHolder, routeId: number): Promise<void> {
    await h.db.execute(
        sql`UPDATE forward_routes SET owner = NULL, lease_until = NULL WHERE id = ${routeId} AND owner = ${h.owner}`,
    );
}
