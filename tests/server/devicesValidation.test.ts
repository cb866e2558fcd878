import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_NAME_RULE_TEXT } from '../../schemas/device';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';
import { createDevice, createProduct, expectRefused, type DeviceRow, type TestProduct } from './devicesSupport';

/**
 * Every rule of schemas/device.ts, sent to the server: refused with the device envelope ({ code: 1, msg }), the
 * rule's exact message, and nothing written (row counts and device_counts unchanged).
 */
let s: TestServer;
let product: TestProduct;
let device: DeviceRow;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    product = await createProduct(s, { productName: '校验设备产品' });
    device = await createDevice(s, product.productKey, { deviceName: 'taken_01' });
});
afterAll(() => s?.close());

const LENGTH = `设备名称长度须为${DEVICE_NAME_RULE_TEXT}`;
const CHARSET = '设备名称只能包含英文字母、数字和特殊字符 - _ @ . :';

const nameCases: Array<[string, string, string]> = [
    ['empty', '', '请输入deviceName!'],
    ['blank', '   ', '请输入deviceName!'],
    ['3 characters', 'abc', LENGTH],
    ['33 characters', 'a'.repeat(33), LENGTH],
    ['SQL', "dev'; DROP TABLE devices;--", CHARSET],
    ['SQL without spaces', "x'OR'1'='1", CHARSET],
    ['markup', '<script>x</script>', CHARSET],
    ['a slash (MQTT topic level)', 'dev/01', CHARSET],
    ['an MQTT wildcard', 'dev#01', CHARSET],
    ['Chinese', '设备名称一号', CHARSET],
    ['a space inside', 'dev 01', CHARSET],
];

describe('POST /api/device/save refuses each rule of deviceCreateSchema', () => {
    it.each<[string, Record<string, string | number>, string]>([
        ['no product', { productKey: '' }, '请选择产品'],
        ...nameCases.map(
            ([name, deviceName, msg]) =>
                [`deviceName: ${name}`, { deviceName }, msg] as [string, Record<string, string>, string],
        ),
        ['remark over 100', { remark: 'r'.repeat(101) }, '备注不得超过100个字符'],
        ['longitude not a number', { longitude: 'east' }, '经度须为数字'],
        ['longitude 181', { longitude: 181 }, '经度须在-180~180之间'],
        ['latitude not a number', { latitude: 'north' }, '纬度须为数字'],
        ['latitude -91', { latitude: -91 }, '纬度须在-90~90之间'],
        ['addr over 200', { addr: '址'.repeat(201) }, '地址不得超过200个字符'],
    ])('%s', async (_name, overrides, message) => {
        await expectRefused(
            s,
            'POST',
            '/api/device/save',
            form({ productKey: product.productKey, deviceName: 'valid_name', ...overrides }),
            message,
        );
    });

    it('an unknown product: 404 产品不存在; a taken name: 409 设备名称已存在', async () => {
        await expectRefused(
            s,
            'POST',
            '/api/device/save',
            form({ productKey: 'NoSuchKey01', deviceName: 'valid_name' }),
            '产品不存在',
            404,
        );
        await expectRefused(
            s,
            'POST',
            '/api/device/save',
            form({ productKey: product.productKey, deviceName: 'taken_01' }),
            '设备名称已存在',
            409,
        );
    });

    it('accepts the boundaries and every allowed special character', async () => {
        for (const deviceName of ['abcd', 'a'.repeat(32), 'a-b_c@d.e:f', '  padded_01  ']) {
            const answer = await call(
                s,
                'POST',
                '/api/device/save',
                form({ productKey: product.productKey, deviceName }),
            );
            expect(answer.status, deviceName).toBe(200);
            expect((answer.body.data as DeviceRow).deviceName).toBe(deviceName.trim());
        }
    });
});

describe('the other writes refuse their rules with nothing written', () => {
    it.each<[string, string, string, Record<string, string | number>, string, number?]>([
        [
            'SaveDevice without product',
            'POST',
            '/api/device/SaveDevice',
            { productId: '', deviceName: 'valid_name' },
            '请选择产品',
        ],
        ['SaveDevice with markup', 'POST', '/api/device/SaveDevice', { productId: 1, deviceName: '<b>x</b>' }, CHARSET],
        [
            'SaveDevice unknown product',
            'POST',
            '/api/device/SaveDevice',
            { productId: 999999, deviceName: 'valid_name' },
            '产品不存在',
            404,
        ],
        ['update without deviceId', 'POST', '/api/device/update', { remark: 'x' }, '缺少设备ID'],
        ['update without remark', 'POST', '/api/device/update', { deviceId: 1, remark: '' }, '备注名称不能为空'],
        [
            'update remark over 100',
            'POST',
            '/api/device/update',
            { deviceId: 1, remark: 'r'.repeat(101) },
            '备注不得超过100个字符',
        ],
        [
            'update to a bad name',
            'POST',
            '/api/device/update',
            { deviceId: 1, remark: 'x', newDeviceName: 'a/b/c' },
            CHARSET,
        ],
        [
            'update an unknown device',
            'POST',
            '/api/device/update',
            { deviceId: 99999999, remark: 'x' },
            '设备不存在',
            404,
        ],
        [
            'batch without product',
            'POST',
            '/api/device/BatchRegisterDevice',
            { productId: '', amount: 5 },
            '请选择产品',
        ],
        [
            'batch without amount',
            'POST',
            '/api/device/BatchRegisterDevice',
            { productId: 1, amount: '' },
            '请输入添加数量',
        ],
        ['batch of 0', 'POST', '/api/device/BatchRegisterDevice', { productId: 1, amount: 0 }, '添加数量须为1~10000'],
        [
            'batch of 10,001',
            'POST',
            '/api/device/BatchRegisterDevice',
            { productId: 1, amount: 10_001 },
            '添加数量须为1~10000',
        ],
        ['batch of 1.5', 'POST', '/api/device/BatchRegisterDevice', { productId: 1, amount: 1.5 }, '添加数量须为整数'],
        [
            'batch unknown product',
            'POST',
            '/api/device/BatchRegisterDevice',
            { productId: 999999, amount: 5 },
            '产品不存在',
            404,
        ],
        ['RemoveDevice without product', 'POST', '/api/device/RemoveDevice', { deviceName: 'taken_01' }, '请选择产品'],
        ['RemoveDevice without name', 'POST', '/api/device/RemoveDevice', { productKey: 'x' }, '请输入deviceName!'],
        ['getStatus without name', 'POST', '/api/device/getStatus', { productKey: 'x' }, '请输入deviceName!'],
        ['enable without deviceId', 'PUT', '/api/device/update', { action: 'enable' }, '缺少设备ID'],
    ])('%s', async (_name, method, path, values, message, status = 400) => {
        await expectRefused(s, method, path, form(values), message, status);
    });

    it('nickname and legacy edits answer in their own envelopes and write nothing', async () => {
        for (const [path, body] of [
            ['/api/device/UpdateDeviceNickname', { returnCode: '9999', returnMessage: '备注名称不能为空' }],
            ['/ms4/device/update', { returnCode: 1, returnMessage: '备注名称不能为空' }],
        ] as const) {
            const answer = await call(s, 'POST', path, form({ deviceId: device.deviceId, remark: '  ' }));
            expect(answer.body).toEqual(body);
            expect(answer.status).toBe(400);
        }
        const stored = (await call(s, 'GET', `/api/device/detail?deviceId=${device.deviceId}`)).body.data as {
            device: DeviceRow;
        };
        expect(stored.device.remark).toBeNull();
    });
});
