import { inArray, sql, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import { stringify } from 'csv-stringify/sync';
import { DEVICE_STATUSES, normaliseStatus } from '../../schemas/device';
import type { Db } from '../db/client';
import { devices, products, projects } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { filterSql, newestFirst, type DeviceFilter } from '../domain/devices';
import { attachment, BOM } from '../http/download';
import { formatTime } from '../http/time';
import { listFilter } from './deviceFilter';
import { currentScope, runInScope } from '../rights/scope';

export const EXPORT_HEADER = [
    '设备名称',
    'ProductKey',
    '产品名称',
    '状态',
    '备注',
    '所属项目',
    '经度',
    '纬度',
    '地址',
    '创建时间',
    '最后上线时间',
];

/**
 * Rows per query. Each chunk's rows are promoted to V8's old generation while the next query runs, so the chunk size
 * sets how much garbage piles up between full collections: at 1,000 a million-row export grew the server by ~90 MB,
 * at 5,000 by ~130 MB, for about the same time (each chunk is an index range: no offset to skip).
 */
export const EXPORT_CHUNK = 1000;

const STATUS_NAMES = new Map<string, string>(DEVICE_STATUSES.map((s) => [s.id, s.name]));

/**
 * A spreadsheet treats a cell that starts with = + - @ (or a tab or carriage return, which some strip first) as a
 * formula: a remark like =HYPERLINK(...) typed by one user would run on the machine of whoever opens the export.
 * A leading apostrophe makes such a cell plain text (OWASP "CSV Injection"). Applied to every text cell that people
 * type; numbers and times the server formats itself are left as they are.
 */
export function neutralise(value: string | null | undefined): string {
    if (value === null || value === undefined) return '';
    return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

interface ExportRow extends Record<string, unknown> {
    id: number | string;
    device_name: string;
    product_id: number;
    project_id: number | null;
    status: string;
    remark: string | null;
    longitude: number | null;
    latitude: number | null;
    addr: string | null;
    create_time: string;
    last_time: string | null;
}

interface Names {
    products: Map<number, { productKey: string; productName: string }>;
    projects: Map<number, string>;
}

/**
 * One keyset chunk from devices alone, times formatted by the database (dayjs per cell would dominate a million
 * rows). Product and project names come from small caches filled per chunk: joining them in SQL made each chunk
 * several times slower on PGlite.
 */
async function chunk(db: Db, filter: DeviceFilter, before: number | undefined, timeZone: string) {
    const where = filterSql(filter);
    const conditions = [where, before === undefined ? undefined : sql`${devices.id} < ${before}`].filter(Boolean);
    const whereSql = conditions.length ? sql`WHERE ${sql.join(conditions as SQL[], sql` AND `)}` : sql``;
    const format = 'YYYY-MM-DD HH24:MI:SS';
    const result = await db.execute(sql`
        SELECT id, device_name, product_id, project_id, status, remark, longitude, latitude, addr,
               to_char(create_time AT TIME ZONE ${timeZone}, ${format}) AS create_time,
               to_char(last_time AT TIME ZONE ${timeZone}, ${format}) AS last_time
        FROM ${devices} ${whereSql}
        ORDER BY ${sql.join(newestFirst(filter), sql`, `)}
        LIMIT ${EXPORT_CHUNK}`);
    return (result as unknown as { rows: ExportRow[] }).rows;
}

async function fillNames(db: Db, rows: ExportRow[], names: Names) {
    const productIds = [...new Set(rows.map((r) => r.product_id))].filter((id) => !names.products.has(id));
    if (productIds.length) {
        const found = await db
            .select({ id: products.id, productKey: products.productKey, productName: products.productName })
            .from(products)
            .where(inArray(products.id, productIds));
        for (const p of found) names.products.set(p.id, p);
    }
    const projectIds = [...new Set(rows.map((r) => r.project_id))].filter(
        (id): id is number => id !== null && !names.projects.has(id),
    );
    if (projectIds.length) {
        const found = await db
            .select({ id: projects.id, name: projects.name })
            .from(projects)
            .where(inArray(projects.id, projectIds));
        for (const p of found) names.projects.set(p.id, p.name);
    }
}

function toCells(r: ExportRow, names: Names): string[] {
    const product = names.products.get(r.product_id);
    return [
        neutralise(r.device_name),
        neutralise(product?.productKey),
        neutralise(product?.productName),
        STATUS_NAMES.get(normaliseStatus(r.status)) ?? r.status,
        neutralise(r.remark),
        neutralise(r.project_id === null ? null : names.projects.get(r.project_id)),
        r.longitude === null ? '' : String(r.longitude),
        r.latitude === null ? '' : String(r.latitude),
        neutralise(r.addr),
        r.create_time,
        r.last_time ?? '',
    ];
}

/**
 * GET /api/device/export: every device matching the general list's filters, as CSV (UTF-8 with BOM, CRLF). The body
 * is a pull stream: the next chunk is read only when the client has taken the previous one, so a slow download of a
 * million rows holds one chunk in memory, not the table. The secret is never selected.
 */
export function deviceExportRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const encoder = new TextEncoder();

    app.get('/export', async (c) => {
        const filter = await listFilter(db, (n) => c.req.query(n));
        // The stream is pulled after this handler returns, outside the request's scope: it keeps the caller's.
        const scope = currentScope();
        let before: number | undefined;
        const names: Names = { products: new Map(), projects: new Map() };
        let started = false;
        let finished = filter === null;
        const body = new ReadableStream<Uint8Array>(
            {
                async pull(controller) {
                    if (!started) {
                        started = true;
                        controller.enqueue(
                            encoder.encode(BOM + stringify([EXPORT_HEADER], { record_delimiter: 'windows' })),
                        );
                        return;
                    }
                    if (finished) return controller.close();
                    const rows = await runInScope(scope, () => chunk(db, filter!, before, config.timeZone));
                    if (rows.length < EXPORT_CHUNK) finished = true;
                    if (rows.length === 0) return controller.close();
                    before = Number(rows[rows.length - 1].id);
                    await fillNames(db, rows, names);
                    const cells = rows.map((r) => toCells(r, names));
                    controller.enqueue(encoder.encode(stringify(cells, { record_delimiter: 'windows' })));
                },
            },
            { highWaterMark: 1 },
        );
        const stamp = formatTime(new Date(), config.timeZone)!.replace(/\D/g, '');
        return c.body(body, 200, {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': attachment(`设备列表_${stamp}.csv`, `devices-${stamp}.csv`),
            'cache-control': 'no-store',
        });
    });

    return app;
}
