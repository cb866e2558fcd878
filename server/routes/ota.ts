import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { and, desc, eq, ilike, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { OTA_MESSAGES } from '../../schemas/ota';
import { otaPackages, products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { asciiFallback } from '../domain/deviceFiles';
import { attachment } from '../http/download';
import { ok } from '../http/envelope';
import { productScopeSql } from '../domain/products';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, readBody } from '../http/input';
import {
    batchDetail,
    batchDevices,
    cancelBatch,
    cancelTask,
    createBatch,
    deviceOta,
    listBatches,
} from '../ota/batches';
import { deletePackage, packageById, packageFile, packageView, storePackage } from '../ota/packages';
import type { Signer } from '../ota/signing';

/**
 * A scoped user (not an administrator) names only packages, batches and tasks of products of their projects (as the
 * rights middleware checks productId, deviceIds, groupId and projectId, server/rights/references.ts): one outside the
 * scope is answered 404 with the words of one that does not exist. Undefined: nothing to check (an administrator).
 */
async function outOfScope(db: Services['db'], what: 'package' | 'batch' | 'task', id: number) {
    const visible = productScopeSql();
    if (!visible) return;
    const owner =
        what === 'package'
            ? sql`SELECT op.product_id FROM ota_packages op WHERE op.id = ${id}`
            : what === 'batch'
              ? sql`SELECT op.product_id FROM ota_batches ob JOIN ota_packages op ON op.id = ob.package_id WHERE ob.id = ${id}`
              : sql`SELECT op.product_id FROM ota_tasks t JOIN ota_batches ob ON ob.id = t.batch_id
                    JOIN ota_packages op ON op.id = ob.package_id WHERE t.id = ${id}`;
    const rows = (await db.execute(sql`
        SELECT coalesce(${visible}, false) AS visible FROM ${products} WHERE ${products.id} = (${owner})`)) as unknown as {
        rows: Array<{ visible: boolean }>;
    };
    // Missing: the route's own 404; present and outside: the same words.
    if (rows.rows[0] && !rows.rows[0].visible) {
        throw notFound(
            what === 'package'
                ? OTA_MESSAGES.notFound
                : what === 'batch'
                  ? OTA_MESSAGES.batchNotFound
                  : '升级任务不存在',
        );
    }
}

export const OTA_UPLOAD_PATH = '/api/ota/package/upload';
const UPLOAD_FIELDS = ['name', 'productId', 'module', 'version', 'sourceVersions', 'signMethod', 'description'];

type Ctx = Context<AppEnv>;

/** 固件列表: a page of packages, filtered by product and name (a scoped user's products only). */
async function listPackages({ db, config }: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const productId = c.req.query('productId');
    const name = c.req.query('name')?.trim();
    const where = and(
        productId ? eq(otaPackages.productId, positiveInt(productId, '产品ID不正确')) : undefined,
        name ? ilike(otaPackages.name, `%${name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`) : undefined,
        productScopeSql(),
    );
    const rows = await db
        .select({ p: otaPackages, productName: products.productName, productKey: products.productKey })
        .from(otaPackages)
        .innerJoin(products, eq(products.id, otaPackages.productId))
        .where(where)
        .orderBy(desc(otaPackages.id))
        .limit(size)
        .offset(offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(otaPackages)
        .innerJoin(products, eq(products.id, otaPackages.productId))
        .where(where);
    return ok(c, {
        records: rows.map((r) =>
            packageView({ ...r.p, productName: r.productName, productKey: r.productKey }, config.timeZone),
        ),
        total: Number(n.n),
    });
}

async function packageDetail({ db, config }: Services, c: Ctx) {
    const id = positiveInt(c.req.query('id'), '缺少固件ID');
    await outOfScope(db, 'package', id);
    const row = await packageById(db, id);
    const [p] = await db
        .select({ productName: products.productName, productKey: products.productKey })
        .from(products)
        .where(eq(products.id, row.productId));
    return ok(c, packageView({ ...row, ...p }, config.timeZone));
}

/** 上传固件: the file is the body (application/octet-stream), streamed to disk; the fields are in the query. */
async function uploadPackage({ db, config }: Services, c: Ctx) {
    const type = c.req.header('content-type') ?? '';
    if (!type.startsWith('application/octet-stream')) {
        throw badRequest(
            `${OTA_MESSAGES.fileRequired}：请以 application/octet-stream 提交文件内容，字段放在查询参数中`,
        );
    }
    const fields = Object.fromEntries(UPLOAD_FIELDS.map((k) => [k, c.req.query(k)]));
    const length = c.req.header('content-length');
    const stored = await storePackage(
        db,
        config.filesDir,
        config.ota.maxBytes,
        {
            fields,
            fileName: c.req.query('fileName') ?? '',
            declaredSize: length && /^\d+$/.test(length) ? Number(length) : undefined,
            body: c.req.raw.body,
        },
        config.timeZone,
    );
    return ok(c, stored);
}

async function removePackage({ db, config }: Services, c: Ctx) {
    const body = await readBody(c);
    const id = positiveInt(body.id, '缺少固件ID');
    await outOfScope(db, 'package', id);
    await deletePackage(db, config.filesDir, id);
    return ok(c, null);
}

/** 批量升级 / 验证固件: the batch is made, and the scheduler runs at once to push it. */
async function addBatch(services: Services, c: Ctx) {
    const body = await readBody(c);
    if (typeof body.packageId === 'number' || (typeof body.packageId === 'string' && /^\d{1,15}$/.test(body.packageId)))
        await outOfScope(services.db, 'package', Number(body.packageId));
    const created = await createBatch(services.db, body);
    void services.ota?.tick();
    return ok(c, created);
}

/** A page of batches, of one package or all (a scoped user's products only). */
async function batchList({ db, config }: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const packageId = c.req.query('packageId') ? positiveInt(c.req.query('packageId'), '固件ID不正确') : undefined;
    if (packageId) await outOfScope(db, 'package', packageId);
    return ok(c, await listBatches(db, packageId, size, offset, config.timeZone, productScopeSql()));
}

async function batchPage({ db, config }: Services, c: Ctx) {
    const id = positiveInt(c.req.query('id'), '缺少批次ID');
    await outOfScope(db, 'batch', id);
    return ok(c, await batchDetail(db, id, config.timeZone));
}

async function batchDeviceList({ db, config }: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const state = c.req.query('state') || undefined;
    if (state && !/^(pending|pushed|upgrading|succeeded|failed|cancelled)$/.test(state)) {
        throw badRequest('状态只能是 pending、pushed、upgrading、succeeded、failed 或 cancelled');
    }
    const batchId = positiveInt(c.req.query('batchId'), '缺少批次ID');
    await outOfScope(db, 'batch', batchId);
    return ok(c, await batchDevices(db, batchId, state, size, offset, config.timeZone));
}

async function batchCancel(services: Services, c: Ctx) {
    const id = positiveInt((await readBody(c)).id, '缺少批次ID');
    await outOfScope(services.db, 'batch', id);
    await cancelBatch(services.db, id, services.now());
    return ok(c, null);
}

async function taskCancel(services: Services, c: Ctx) {
    const id = positiveInt((await readBody(c)).id, '缺少任务ID');
    await outOfScope(services.db, 'task', id);
    await cancelTask(services.db, id, services.now());
    return ok(c, null);
}

async function deviceVersions({ db, config }: Services, c: Ctx) {
    return ok(c, await deviceOta(db, positiveInt(c.req.query('deviceId'), '缺少设备ID'), config.timeZone));
}

/**
 * /api/ota (docs/ota.md): firmware packages, batches, a batch's devices, a device's versions and history. The upload
 * is the file itself as the request body (application/octet-stream) with the fields in the query, so the server
 * streams it to disk (a multipart body would be read whole before its file could be seen).
 */
export function otaRoutes(services: Services) {
    const app = new Hono<AppEnv>();
    const on = (handler: (s: Services, c: Ctx) => Promise<Response>) => (c: Ctx) => handler(services, c);
    app.get('/package', on(listPackages));
    app.get('/package/detail', on(packageDetail));
    app.post('/package/upload', on(uploadPackage));
    app.post('/package/delete', on(removePackage));
    app.post('/batch', on(addBatch));
    app.get('/batch', on(batchList));
    app.get('/batch/detail', on(batchPage));
    app.get('/batch/devices', on(batchDeviceList));
    app.post('/batch/cancel', on(batchCancel));
    app.post('/task/cancel', on(taskCancel));
    app.get('/device', on(deviceVersions));
    return app;
}

/**
 * The one range of a Range header within a file of `size` bytes: undefined without a header, 'unsatisfiable' for a
 * malformed or out-of-file one (answered 416).
 */
export function parseRange(
    range: string | undefined,
    size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
    if (!range) return undefined;
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    const a = m?.[1] ? Number(m[1]) : undefined;
    const b = m?.[2] ? Number(m[2]) : undefined;
    let start = 0;
    let end = size - 1;
    if (m && a !== undefined) {
        start = a;
        end = b !== undefined ? Math.min(b, size - 1) : size - 1;
    } else if (m && b !== undefined) {
        start = Math.max(0, size - b);
    }
    if (!m || (a === undefined && b === undefined) || start > end || start >= size) return 'unsatisfiable';
    return { start, end };
}

/**
 * GET /api/ota/download: the one path of /api without a session. The device presents the signed URL it was pushed;
 * an expired or altered one is answered 403. Range requests (one range) answer 206, so a cut download resumes.
 */
export function otaDownloadRoute(services: Services, signer: Signer) {
    const app = new Hono<AppEnv>();
    app.get('/', async (c) => {
        const verdict = await signer.check(
            c.req.query('packageId'),
            c.req.query('expires'),
            c.req.query('signature'),
            services.now().getTime(),
        );
        if (verdict !== 'ok') {
            const msg = verdict === 'expired' ? '下载地址已过期，请让设备重新请求升级' : '下载地址签名无效';
            return c.json({ code: 403, msg }, 403);
        }
        const id = Number(c.req.query('packageId'));
        const row = await packageById(services.db, id).catch(() => undefined);
        const file = row && (await packageFile(services.config.filesDir, row));
        if (!row || !file) return c.json({ code: 404, msg: OTA_MESSAGES.notFound }, 404);
        const headers: Record<string, string> = {
            'content-type': 'application/octet-stream',
            'x-content-type-options': 'nosniff',
            'content-disposition': attachment(row.fileName, asciiFallback(row.fileName)),
            'accept-ranges': 'bytes',
            'cache-control': 'private, no-store',
            etag: `"${row.sha256}"`,
        };
        const range = parseRange(c.req.header('range'), file.size);
        if (range === 'unsatisfiable') {
            return c.body(null, 416, { 'content-range': `bytes */${file.size}`, 'accept-ranges': 'bytes' });
        }
        const { start, end } = range ?? { start: 0, end: file.size - 1 };
        if (range) headers['content-range'] = `bytes ${start}-${end}/${file.size}`;
        headers['content-length'] = String(end - start + 1);
        const stream = createReadStream(file.file, { start, end });
        return c.body(Readable.toWeb(stream) as ReadableStream, range ? 206 : 200, headers);
    });
    return app;
}
