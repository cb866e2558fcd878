import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apps, categories, deviceCounts, devices, productCounts, products, projects } from '../db/schema';
import { currentScope, scopeByProjectId } from '../rights/scope';
import { productScopeSql } from './products';

type Rows<T> = { rows: T[] };
const rowsOf = <T>(result: unknown) => (result as Rows<T>).rows;

/** The dashboard's five counts, in one statement over small tables and counters (never the devices table). */
export async function dashboardCounts(db: Db) {
    if (currentScope()) return scopedDashboardCounts(db);
    const [row] = rowsOf<Record<string, string | number | null>>(
        await db.execute(sql`
            SELECT (SELECT count(*) FROM ${projects}) AS project_count,
                   (SELECT coalesce(sum(${productCounts.total}), 0) FROM ${productCounts}) AS product_count,
                   (SELECT coalesce(sum(${deviceCounts.total}), 0) FROM ${deviceCounts}) AS device_count,
                   (SELECT count(*) FROM ${apps} WHERE ${apps.publishStatus} = 1 AND ${apps.useStatus} = 1)
                       AS app_used_count,
                   (SELECT count(*) FROM ${apps}
                    WHERE ${apps.publishStatus} = 1 AND ${apps.activeStatus} = 1 AND ${apps.useStatus} <> 1)
                       AS app_to_use_count`),
    );
    return {
        projectCount: Number(row.project_count),
        productCount: Number(row.product_count),
        deviceCount: Number(row.device_count),
        appUsedCount: Number(row.app_used_count),
        appToUseCount: Number(row.app_to_use_count),
    };
}

/** The same counts for a user who is not an administrator: their projects, those projects' products and devices. */
async function scopedDashboardCounts(db: Db) {
    const [row] = rowsOf<Record<string, string | number | null>>(
        await db.execute(sql`
            SELECT (SELECT count(*) FROM ${projects} WHERE ${scopeByProjectId(projects.id)}) AS project_count,
                   (SELECT count(*) FROM ${products} WHERE ${productScopeSql()}) AS product_count,
                   (SELECT count(*) FROM ${devices} WHERE ${scopeByProjectId(devices.projectId)}) AS device_count,
                   (SELECT count(*) FROM ${apps} WHERE ${apps.useStatus} = 1) AS app_used_count,
                   (SELECT count(*) FROM ${apps} WHERE ${apps.activeStatus} = 1 AND ${apps.useStatus} <> 1)
                       AS app_to_use_count`),
    );
    return {
        projectCount: Number(row.project_count),
        productCount: Number(row.product_count),
        deviceCount: Number(row.device_count),
        appUsedCount: Number(row.app_used_count),
        appToUseCount: Number(row.app_to_use_count),
    };
}

/**
 * Device totals per top-level category, from `perProduct` (rows of product_id, total). Products sit on any level of
 * the category tree; each is counted under the root of its category. Roots without devices are left out.
 */
async function byRootCategory(db: Db, perProduct: SQL) {
    return rowsOf<{ category_id: number; category_name: string; total: string | number }>(
        await db.execute(sql`
            WITH RECURSIVE tree (id, root) AS (
                SELECT ${categories.id}, ${categories.id} FROM ${categories} WHERE ${categories.parentId} IS NULL
                UNION ALL
                SELECT c.id, t.root FROM ${categories} c JOIN tree t ON c.parent_id = t.id
            ),
            per_product (product_id, total) AS (${perProduct})
            SELECT r.id AS category_id, r.name AS category_name, sum(pp.total)::bigint AS total
            FROM per_product pp
            JOIN ${products} p ON p.id = pp.product_id
            JOIN tree t ON t.id = p.category_id
            JOIN ${categories} r ON r.id = t.root
            GROUP BY r.id, r.name, r.sort
            HAVING sum(pp.total) > 0
            ORDER BY r.sort, r.id`),
    ).map((r) => ({ categoryId: Number(r.category_id), categoryName: r.category_name, total: Number(r.total) }));
}

/** Every device per top-level category: device_counts joined with products (a few rows per product). */
export function devicesByCategory(db: Db) {
    const scoped = scopeByProjectId(devices.projectId);
    if (scoped)
        return byRootCategory(
            db,
            sql`SELECT ${devices.productId}, count(*) FROM ${devices} WHERE ${scoped} GROUP BY 1`,
        );
    return byRootCategory(
        db,
        sql`SELECT ${deviceCounts.productId}, sum(${deviceCounts.total}) FROM ${deviceCounts} GROUP BY 1`,
    );
}

/** One project's devices per top-level category (index-only over the project's entries). */
export function projectDevicesByCategory(db: Db, projectId: number) {
    return byRootCategory(
        db,
        sql`SELECT ${devices.productId}, count(*) FROM ${devices} WHERE ${devices.projectId} = ${projectId} GROUP BY 1`,
    );
}

/** One project's devices per status, every status present. */
export async function projectDevicesByStatus(db: Db, projectId: number) {
    const rows = rowsOf<{ status: string; amount: string | number }>(
        await db.execute(
            sql`SELECT ${devices.status} AS status, count(*) AS amount FROM ${devices}
                WHERE ${devices.projectId} = ${projectId} GROUP BY 1`,
        ),
    );
    const by = new Map(rows.map((r) => [r.status, Number(r.amount)]));
    return (['ONLINE', 'OFFLINE', 'INACTIVE', 'DISABLE'] as const).map((status) => ({
        status,
        amount: by.get(status) ?? 0,
    }));
}

/** `AND devices in the caller's projects`, or nothing for an administrator. */
function scopeAnd(): SQL {
    const scoped = scopeByProjectId(devices.projectId);
    return scoped ? sql`AND ${scoped}` : sql``;
}

export type Bbox = [west: number, south: number, east: number, north: number];

/**
 * The device map's answer as JSON text, built by the database: `{"list":[...],"total":N}`. Every located device
 * (or those inside `bbox`) from devices_located_idx alone; the rows never become JavaScript objects, so 100,000
 * points cost one string copy instead of a parse and a stringify.
 */
export async function locatedDevicesJson(db: Db, bbox?: Bbox): Promise<string> {
    const inside = bbox
        ? sql`AND ${devices.longitude} BETWEEN ${bbox[0]} AND ${bbox[2]} AND ${devices.latitude} BETWEEN ${bbox[1]} AND ${bbox[3]}`
        : sql``;
    // Written by hand rather than json_build_object, whose output puts spaces around every colon (a fifth more bytes).
    // Doubles print in their shortest exact form; to_json quotes and escapes the name.
    const [row] = rowsOf<{ list: string | null; total: string | number }>(
        await db.execute(sql`
            SELECT string_agg(
                       '{"deviceId":' || ${devices.id} || ',"productId":' || ${devices.productId}
                       || ',"deviceName":' || to_json(${devices.deviceName})::text
                       || ',"longitude":' || ${devices.longitude} || ',"latitude":' || ${devices.latitude}
                       || ',"status":"' || ${devices.status} || '"}', ',') AS list,
                   count(*) AS total
            FROM ${devices}
            WHERE ${devices.longitude} IS NOT NULL AND ${devices.latitude} IS NOT NULL ${inside} ${scopeAnd()}`),
    );
    return `{"list":[${row.list ?? ''}],"total":${Number(row.total)}}`;
}
