// @vitest-environment node
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { EXPORT_CHUNK } from '../../server/routes/deviceExport';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';
import { createDevice, createProduct, listForm, type DeviceRow, type TestProduct } from './devicesSupport';

let s: TestServer;
let product: TestProduct;
let other: TestProduct;

const HEADER = [
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

beforeAll(async () => {
    s = await createTestServer();
    product = await createProduct(s, { productName: '导出测试产品' });
    other = await createProduct(s, { productName: '导出测试其他' });
});
afterAll(() => s?.close());

async function exportCsv(query = '') {
    const res = await s.fetch(`/api/device/export${query ? `?${query}` : ''}`);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = Buffer.from(bytes).toString('utf8');
    return { res, bytes, text, rows: parse(text, { bom: true }) as string[][] };
}

describe('export', () => {
    it('streams every matching device as CSV: BOM, Chinese header, statuses in Chinese, no secret, an attachment', async () => {
        const lamp = await createDevice(s, product.productKey, {
            deviceName: 'export_01',
            remark: '一号，"引号"',
            longitude: -73.98,
            latitude: 40.75,
            addr: '上海市\n浦东新区',
        });
        await createDevice(s, product.productKey, { deviceName: 'export_02' });
        await s.db.update(devices).set({ status: 'ONLINE', lastTime: new Date() }).where(eq(devices.id, lamp.deviceId));
        await call(s, 'POST', '/api/device/bind', listForm({ projectId: 1, deviceId: [lamp.deviceId] }));

        const { res, bytes, text, rows } = await exportCsv(`productKey=${product.productKey}`);
        expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        const disposition = res.headers.get('content-disposition')!;
        expect(disposition).toMatch(/^attachment; filename="devices-\d{14}\.csv"; filename\*=UTF-8''/);
        expect(decodeURIComponent(disposition.split("UTF-8''")[1])).toMatch(/^设备列表_\d{14}\.csv$/);
        expect(rows[0]).toEqual(HEADER);
        expect(rows.slice(1).map((r) => r[0])).toEqual(['export_02', 'export_01']);
        const [, , , status, remark, project, lng, lat, addr, created, last] = rows[2];
        expect([status, remark, lng, lat, addr]).toEqual([
            '在线',
            '一号，"引号"',
            '-73.98',
            '40.75',
            '上海市\n浦东新区',
        ]);
        expect(project).toBeTruthy();
        expect(created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        expect(last).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        expect(rows[1][3]).toBe('未激活');
        expect(rows[1][10]).toBe('');
        const secrets = (await s.db.select({ secret: devices.secret }).from(devices)).map((r) => r.secret);
        for (const secret of secrets) expect(text).not.toContain(secret);
        expect(text).toContain('\r\n');
    });

    it('escapes cells that a spreadsheet would run as formulas', async () => {
        const p = await createProduct(s, { productName: '导出注入测试' });
        await createDevice(s, p.productKey, {
            deviceName: '@SUM_1',
            remark: '=HYPERLINK("http://x","点我")',
            addr: '+1-2',
        });
        const dash = await createDevice(s, p.productKey, { deviceName: '-dash_1' });
        // The form trims a leading tab; a row written another way may still hold one.
        await s.db.update(devices).set({ remark: '\t=1+1' }).where(eq(devices.id, dash.deviceId));
        await createDevice(s, p.productKey, { deviceName: 'plain_1', remark: 'a=b' });
        const { rows } = await exportCsv(`productKey=${p.productKey}`);
        const cells = new Map(rows.slice(1).map((r) => [r[0], r]));
        expect(cells.get("'@SUM_1")).toBeDefined();
        expect(cells.get("'@SUM_1")![4]).toBe(`'=HYPERLINK("http://x","点我")`);
        expect(cells.get("'@SUM_1")![8]).toBe("'+1-2");
        expect(cells.get("'-dash_1")![4]).toBe("'\t=1+1");
        expect(cells.get('plain_1')![4]).toBe('a=b');
    });

    it('applies the list filters, and walks past one chunk without losing or repeating a row', async () => {
        const big = await call(
            s,
            'POST',
            '/api/device/BatchRegisterDevice',
            form({ productId: other.productId, amount: EXPORT_CHUNK + 7 }),
        );
        expect((big.body.data as { count: number }).count).toBe(EXPORT_CHUNK + 7);
        const all = await exportCsv(`productKey=${other.productKey}`);
        const names = all.rows.slice(1).map((r) => r[0]);
        expect(names).toHaveLength(EXPORT_CHUNK + 7);
        expect(new Set(names).size).toBe(EXPORT_CHUNK + 7);

        const online = await exportCsv(`productKey=${product.productKey}&status=ONLINE`);
        expect(online.rows.slice(1).map((r) => r[0])).toEqual(['export_01']);
        const search = await exportCsv(`deviceName=export_0`);
        expect(search.rows.slice(1).map((r) => r[0])).toEqual(['export_02', 'export_01']);
        const none = await exportCsv('productKey=NoSuchKey01');
        expect(none.rows).toEqual([HEADER]);

        // Without filters: every device, the demo ones included, as many rows as the list's total.
        const list = (await call(s, 'GET', '/api/device/list?pageSize=1')).body.data as {
            total: number;
            records: DeviceRow[];
        };
        const everything = await exportCsv();
        expect(everything.rows.length - 1).toBe(list.total);
        expect((await call(s, 'GET', '/api/device/export?status=Y')).status).toBe(400);
    }, 60_000);
});
