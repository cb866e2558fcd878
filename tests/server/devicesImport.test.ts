// @vitest-environment node
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_COLUMNS, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '../../schemas/device';
import { devices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call } from './support';
import {
    counters,
    createDevice,
    createProduct,
    csvFile,
    expectRefused,
    realCounts,
    upload,
    type TestProduct,
} from './devicesSupport';

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    product = await createProduct(s, { productName: '导入测试产品' });
    await createDevice(s, product.productKey, { deviceName: 'existing_01' });
});
afterAll(() => s?.close());

interface ImportAnswer {
    success: Array<{ deviceName: string }>;
    failure: Array<{ deviceName: string; msg: string; line: number }>;
}

const BOM = [0xef, 0xbb, 0xbf];

describe('import template', () => {
    it('is a UTF-8 CSV with BOM, the IMPORT_COLUMNS header and two example rows, as a Chinese-named attachment', async () => {
        const res = await s.fetch('/api/device/import/template');
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        const disposition = res.headers.get('content-disposition')!;
        expect(disposition).toMatch(/^attachment; filename="device-import-template\.csv"; filename\*=UTF-8''/);
        expect(decodeURIComponent(disposition.split("UTF-8''")[1])).toBe('设备导入模板.csv');
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect([...bytes.slice(0, 3)]).toEqual(BOM);
        const rows = parse(Buffer.from(bytes), { bom: true }) as string[][];
        expect(rows[0]).toEqual([...IMPORT_COLUMNS]);
        expect(rows).toHaveLength(3);
        // The template itself imports cleanly.
        const answer = await call(
            s,
            'POST',
            '/api/device/import',
            upload(product.productKey, csvFile(new TextDecoder().decode(bytes))),
        );
        expect((answer.body.data as ImportAnswer).failure).toEqual([]);
    });
});

describe('import', () => {
    it('writes the good rows and lists the bad ones with their reasons (BOM, CRLF, Chinese kept)', async () => {
        const text =
            '\uFEFFdeviceName,remark,longitude,latitude,addr\r\n' +
            'good_0001,一号楼 "会议室",121.47,31.23,上海市黄浦区\r\n' +
            'good_0002,,,,\r\n' +
            '\r\n' +
            'good_0001,重复的,,,\r\n' +
            'existing_01,已存在,,,\r\n' +
            'bad/name,斜杠,,,\r\n' +
            ',没有名字,,,\r\n' +
            'good_0003,经度不对,east,,\r\n' +
            'good_0004,多一列,1,2,3,4\r\n' +
            '"good_0005","<b>标记</b>",-73.98,40.75,"New York, NY"\r\n';
        const before = await counters(s);
        const answer = await call(s, 'POST', '/api/device/import', upload(product.productKey, csvFile(text)));
        const data = answer.body.data as ImportAnswer;
        expect(answer.body.code).toBe(0);
        expect(data.success).toEqual([
            { deviceName: 'good_0001' },
            { deviceName: 'good_0002' },
            { deviceName: 'good_0005' },
        ]);
        expect(data.failure).toEqual([
            { line: 5, deviceName: 'good_0001', msg: '文件中重复' },
            { line: 6, deviceName: 'existing_01', msg: '设备已存在' },
            { line: 7, deviceName: 'bad/name', msg: '设备名称只能包含英文字母、数字和特殊字符 - _ @ . :' },
            { line: 8, deviceName: '', msg: '请输入deviceName!' },
            { line: 9, deviceName: 'good_0003', msg: '经度须为数字' },
            { line: 10, deviceName: 'good_0004', msg: '列数（6）多于表头（5）' },
        ]);
        const rows = await s.db.select().from(devices).where(eq(devices.productId, product.productId));
        const byName = new Map(rows.map((r) => [r.deviceName, r]));
        expect(byName.get('good_0001')).toMatchObject({
            remark: '一号楼 "会议室"',
            longitude: 121.47,
            addr: '上海市黄浦区',
        });
        expect(byName.get('good_0002')).toMatchObject({ remark: null, longitude: null });
        expect(byName.get('good_0005')).toMatchObject({ remark: '<b>标记</b>', addr: 'New York, NY' });
        expect(byName.get('good_0005')!.secret).toMatch(/^[0-9a-f]{32}$/);
        expect(byName.has('good_0003')).toBe(false);
        expect(await counters(s)).toEqual(await realCounts(s));
        expect((await counters(s))[`${product.productId}/INACTIVE`]).toBe(before[`${product.productId}/INACTIVE`] + 3);
    });

    it('takes the columns in any order, LF line ends and no BOM', async () => {
        const answer = await call(
            s,
            'POST',
            '/api/device/import',
            upload(product.productKey, csvFile('remark,deviceName\n乱序,order_01\n')),
        );
        expect(answer.body.data).toEqual({ success: [{ deviceName: 'order_01' }], failure: [] });
    });

    it('writes nothing when every row fails', async () => {
        const before = await realCounts(s);
        const answer = await call(
            s,
            'POST',
            '/api/device/import',
            upload(product.productKey, csvFile('deviceName\nx\nexisting_01\n')),
        );
        expect((answer.body.data as ImportAnswer).success).toEqual([]);
        expect((answer.body.data as ImportAnswer).failure.map((f) => f.msg)).toEqual([
            '设备名称长度须为4~32个字符，支持英文字母、数字和特殊字符 - _ @ . :',
            '设备已存在',
        ]);
        expect(await realCounts(s)).toEqual(before);
    });
});

describe('import refuses a file it cannot read, writing nothing', () => {
    const big = () => {
        const line = 'padding_device_name_0001,' + 'x'.repeat(90) + '\n';
        return csvFile('deviceName,remark\n' + line.repeat(Math.ceil((IMPORT_MAX_BYTES + 1024) / line.length)));
    };
    const png = new File(
        [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])],
        'devices.csv',
        {
            type: 'text/csv',
        },
    );
    const gbk = new File(
        [new Uint8Array([0x64, 0x65, 0x76, 0x69, 0x63, 0x65, 0x4e, 0x61, 0x6d, 0x65, 0x0a, 0xc9, 0xe8, 0xb1, 0xb8])],
        'devices.csv',
    );

    it.each<[string, () => RequestInit, string, number?]>([
        ['no product', () => upload(undefined, csvFile('deviceName\nabcd_1\n')), '请选择产品!'],
        ['an unknown product', () => upload('NoSuchKey01', csvFile('deviceName\nabcd_1\n')), '产品不存在', 404],
        ['no file', () => upload(product.productKey), '请选择要上传的文件'],
        ['a file field that is text', () => upload(product.productKey, 'deviceName\nabcd_1\n'), '请选择要上传的文件'],
        ['a file over the limit', () => upload(product.productKey, big()), '文件大小不能超过20MB', 413],
        [
            'the wrong extension',
            () => upload(product.productKey, csvFile('deviceName\nabcd_1\n', 'devices.xlsx')),
            '只支持 CSV 文件（.csv），收到的是「devices.xlsx」',
        ],
        [
            'the wrong content type',
            () => upload(product.productKey, csvFile('deviceName\nabcd_1\n', 'devices.csv', 'image/png')),
            '文件类型不是 CSV（image/png）',
        ],
        ['binary content', () => upload(product.productKey, png), '文件不是 CSV 文本（含有二进制内容）'],
        [
            'another encoding (GBK)',
            () => upload(product.productKey, gbk),
            '文件不是 UTF-8 编码，请在表格软件中另存为「CSV UTF-8」后再上传',
        ],
        ['an empty file', () => upload(product.productKey, csvFile('')), '文件为空'],
        ['only blank lines', () => upload(product.productKey, csvFile('\uFEFF\r\n\r\n')), '文件为空'],
        [
            'only the header',
            () => upload(product.productKey, csvFile('\uFEFFdeviceName,remark\r\n')),
            '文件中没有设备数据（只有表头）',
        ],
        ['no deviceName column', () => upload(product.productKey, csvFile('remark,addr\nx,y\n')), '缺少 deviceName 列'],
        [
            'unknown columns',
            () => upload(product.productKey, csvFile('deviceName,secret,colour\nabcd_1,s,c\n')),
            `未知的列：secret、colour（只支持 ${IMPORT_COLUMNS.join('、')}）`,
        ],
        [
            'a repeated column',
            () => upload(product.productKey, csvFile('deviceName,remark,remark\nabcd_1,a,b\n')),
            '重复的列：remark',
        ],
        [
            'a blank column name',
            () => upload(product.productKey, csvFile('deviceName,,remark\nabcd_1,a,b\n')),
            '表头第2列没有列名',
        ],
        [
            'an unclosed quote',
            () => upload(product.productKey, csvFile('deviceName,remark\nabcd_1,"open\n')),
            'CSV 格式错误：第2行引号未闭合',
        ],
        [
            'not multipart',
            () => ({ body: new URLSearchParams({ productKey: 'x' }) }),
            '请以 multipart/form-data 上传 productKey 和 file',
        ],
    ])('%s', async (_name, init, message, status = 400) => {
        await expectRefused(s, 'POST', '/api/device/import', init(), message, status);
    });

    it(`more than ${IMPORT_MAX_ROWS} rows`, async () => {
        const rows = Array.from({ length: IMPORT_MAX_ROWS + 1 }, (_, i) => `r${i}`).join('\n');
        await expectRefused(
            s,
            'POST',
            '/api/device/import',
            upload(product.productKey, csvFile(`deviceName\n${rows}\n`)),
            `文件超过${IMPORT_MAX_ROWS}行数据的上限`,
        );
    }, 60_000);
});
