import { Hono } from 'hono';
import { limitBody } from '../http/guard';
import { stringify } from 'csv-stringify/sync';
import { IMPORT_COLUMNS, IMPORT_DEVICE_EXISTS, IMPORT_MAX_BYTES } from '../../schemas/device';
import type { AppEnv, Services } from '../deps';
import { productByKey } from '../domain/devices';
import { checkUploadMeta, IMPORT_LIMIT_TEXT, parseImport, type ImportFailure } from '../domain/deviceImport';
import { insertDevices } from '../domain/deviceWrite';
import { attachment, BOM } from '../http/download';
import { fail, ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { parseForm } from '../http/input';
import { refuseOutOfScope } from '../rights/references';

/** Multipart framing and the productKey field around the file. */
const MULTIPART_ALLOWANCE = 64 * 1024;

export const IMPORT_TEMPLATE =
    BOM +
    stringify(
        [
            [...IMPORT_COLUMNS],
            ['device_0001', '一号楼温湿度传感器', '121.473701', '31.230416', '上海市黄浦区人民大道200号'],
            ['device_0002', '只有 deviceName 必填，其余可留空', '', '', ''],
        ],
        { record_delimiter: 'windows' },
    );

/** Bulk import: the template, and the upload (multipart productKey, file). */
export function deviceImportRoutes({ db, maintenance }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/import/template', (c) =>
        c.body(IMPORT_TEMPLATE, 200, {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': attachment('设备导入模板.csv', 'device-import-template.csv'),
        }),
    );

    app.post(
        '/import',
        // The app's general 10 MB body limit skips this path (app.ts); this one fits the file limit.
        limitBody({
            maxSize: IMPORT_MAX_BYTES + MULTIPART_ALLOWANCE,
            onError: (c) => fail(c, 413, `文件大小不能超过${IMPORT_LIMIT_TEXT}`),
        }),
        async (c) => {
            if (!(c.req.header('content-type') ?? '').includes('multipart/form-data')) {
                throw badRequest('请以 multipart/form-data 上传 productKey 和 file');
            }
            const form = await parseForm(c);
            await refuseOutOfScope(db, form);
            const productKey = typeof form.productKey === 'string' ? form.productKey.trim() : '';
            if (!productKey) throw badRequest('请选择产品!');
            const product = await productByKey(db, productKey);
            if (!product) throw notFound('产品不存在');
            const file = form.file;
            if (!(file instanceof File)) throw badRequest('请选择要上传的文件');
            checkUploadMeta(file);
            const { rows, failure } = parseImport(new Uint8Array(await file.arrayBuffer()));

            // One transaction: the valid rows go in together or, on a fault, not at all. A name the product already
            // has is skipped by the insert itself, so a device added meanwhile is reported, never overwritten.
            const inserted = rows.length ? await db.transaction((tx) => insertDevices(tx, product, rows)) : [];
            maintenance?.noteDeviceWrites(inserted.length);
            const written = new Set(inserted.map((r) => r.deviceName));
            const refused: ImportFailure[] = [...failure];
            for (const row of rows) {
                if (!written.has(row.deviceName)) {
                    refused.push({ deviceName: row.deviceName, line: row.line, msg: IMPORT_DEVICE_EXISTS });
                }
            }
            refused.sort((a, b) => a.line - b.line);
            return ok(c, {
                success: rows.filter((r) => written.has(r.deviceName)).map((r) => ({ deviceName: r.deviceName })),
                failure: refused,
            });
        },
    );

    return app;
}
