import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';

/** Routes (subscriptions) are re-read this often, so another process's edits arrive. */
export const ROUTES_TTL_MS = 3_000;

/** Which consumer groups each product's posts go to, as read from the subscriptions. */
export interface RoutesState {
    db: Db;
    log: (message: string) => void;
    byProduct: Map<number, number[]>;
    /** When byProduct was read (ms). */
    at: number;
    loading: Promise<void> | undefined;
}

export function routesState(db: Db, log: (message: string) => void): RoutesState {
    return { db, log, byProduct: new Map(), at: 0, loading: undefined };
}

export async function loadRoutes(s: RoutesState): Promise<void> {
    const result = await s.db.execute(sql`
        SELECT s.product_id, sg.group_id FROM subscriptions s
        JOIN subscription_groups sg ON sg.subscription_id = s.id
        WHERE s.msg_types LIKE '%post%'`);
    const next = new Map<number, number[]>();
    for (const r of rowsOf<{ product_id: number; group_id: number }>(result)) {
        const list = next.get(Number(r.product_id)) ?? [];
        list.push(Number(r.group_id));
        next.set(Number(r.product_id), list);
    }
    s.byProduct = next;
    s.at = Date.now();
}

/** Re-reads the routes (once however many ask meanwhile); a failure is logged and the old routes kept. */
export function refreshRoutes(s: RoutesState): Promise<void> {
    s.loading ??= loadRoutes(s)
        .catch((err) => s.log(`读取订阅失败: ${String(err)}`))
        .finally(() => (s.loading = undefined));
    return s.loading;
}

/** The groups a product's posts go to now (a refresh is started when the routes are older than ROUTES_TTL_MS). */
export function groupsOf(s: RoutesState, productId: number): number[] | undefined {
    if (Date.now() - s.at > ROUTES_TTL_MS) void refreshRoutes(s);
    return s.byProduct.get(productId);
}
