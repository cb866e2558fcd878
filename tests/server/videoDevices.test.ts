/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';

/**
 * /api/video-device: rtsp and gb28181 cameras as devices of a product (SPEC.md "Video devices"): the add / edit /
 * delete calls with SPEC's messages, the list and its status filter, the region dictionaries, and push refusals.
 * The live relay itself is in videoStream.test.ts.
 */

let server: TestServer;
let productId: number;
let otherProductId: number;

const form = (values: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));

async function call(path: string, values?: Record<string, string | number>, method = 'POST') {
    const res = await server.fetch(`/api/video-device/${path}`, values ? { method, body: form(values) } : { method });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: any } };
}
const get = async (path: string) => {
    const res = await server.fetch(`/api/video-device/${path}`);
    return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: any } };
};

beforeAll(async () => {
    server = await createTestServer();
    const res = await server.fetch('/api/product/list-product');
    const list = ((await res.json()) as { data: { list: Array<{ productId: number }> } }).data.list;
    productId = list[0].productId;
    otherProductId = list[1].productId;
});
afterAll(() => server.close());

describe('adding cameras', () => {
    it('adds an rtsp camera with the default sub-stream uri and answers no password', async () => {
        const { status, body } = await call('add-rtsp', {
            productId,
            deviceName: 'gate_cam1',
            host: '192.168.1.64',
            port: 554,
            username: 'admin',
            password: 'cam_pass1',
            longitude: 121.47,
            latitude: 31.23,
            address: '上海市黄浦区',
            pcode: '31',
            ccode: '01',
            acode: '01',
            tcode: '132',
            icode: '00',
            ncode: '7',
            remark: '<b>东门</b>',
        });
        expect(status).toBe(200);
        expect(body.code).toBe(200);
        const cam = body.data;
        expect(cam).toMatchObject({
            deviceName: 'gate_cam1',
            protocol: 'rtsp',
            pushing: 0,
            status: 'INACTIVE',
            uri: '/h264/ch1/sub/av_stream',
            port: 554,
            hasPassword: true,
            position: '121.47,31.23',
            pcode: '31',
            ccode: '01',
            acode: '01',
            tname: '网络摄像机(IPC)',
            iname: '社会治安路面接入',
            nname: 'Internet网',
            remark: '<b>东门</b>',
            sipId: null,
        });
        expect(JSON.stringify(cam)).not.toContain('cam_pass1');
        expect(cam).not.toHaveProperty('password');
        // It is a device of the product, listed with the product's devices.
        const devices = await server.fetch(`/api/device/detail?deviceId=${cam.deviceId}`);
        expect(((await devices.json()) as any).data.device.deviceName).toBe('gate_cam1');
    });

    it("refuses with SPEC's messages and writes nothing", async () => {
        const before = (await get('list')).body.data.total;
        expect((await call('add-rtsp', { deviceName: 'cam_x', host: 'h', port: 554 })).body.msg).toBe('请选择产品！');
        expect((await call('add-rtsp', { productId, host: 'h', port: 554 })).body.msg).toBe('请输入deviceName！');
        expect((await call('add-rtsp', { productId, deviceName: '1cam', host: 'h', port: 554 })).body.msg).toBe(
            'deviceName须以英文字母开头，只能包含英文字母、数字和下划线',
        );
        expect(
            (await call('add-rtsp', { productId, deviceName: `a${'b'.repeat(30)}`, host: 'h', port: 554 })).body.msg,
        ).toBe('deviceName长度为1~30个字符');
        expect(
            (await call('add-rtsp', { productId, deviceName: 'cam_x', host: 'h', port: 554, password: 'a-b' })).body
                .msg,
        ).toBe('支持英文字母、数字和下划线，最多16位');
        expect((await call('add-rtsp', { productId, deviceName: 'cam_x', host: 'h', port: 70000 })).status).toBe(400);
        expect(
            (await call('add-rtsp', { productId, deviceName: 'cam_x', host: 'h', port: 554, tcode: '999' })).body.msg,
        ).toBe('设备类型编码 999 不存在');
        expect(
            (
                await call('add-gb28181', {
                    productId,
                    deviceName: 'gb_x',
                    password: 'abc_123',
                    confirmPassword: 'abc_124',
                })
            ).body.msg,
        ).toBe('两次输入的密码不一致，请重新输入！');
        expect((await call('add-rtsp', { productId, deviceName: 'gate_cam1', host: 'h', port: 554 })).body.msg).toBe(
            '设备名称已存在',
        );
        expect((await get('list')).body.data.total).toBe(before);
    });

    it('adds a gb28181 camera with its GB code and the SIP server it registers to', async () => {
        const { body } = await call('add-gb28181', {
            productId,
            deviceName: 'gb_cam1',
            manufacturer: 'Hikvision',
            password: 'gb_pass_1',
            confirmPassword: 'gb_pass_1',
            pcode: '31',
            ccode: '01',
            acode: '05',
            tcode: '132',
        });
        expect(body.code).toBe(200);
        expect(body.data).toMatchObject({
            protocol: 'gb28181',
            uri: '',
            manufacturer: 'Hikvision',
            sipId: '34020000002000000001',
            sipDomain: '3402000000',
            channels: [],
        });
        expect(body.data.gbId).toMatch(/^31010500001327\d{6}$/);
        expect(JSON.stringify(body.data)).not.toContain('gb_pass_1');
    });
});

describe('the list, one camera and the dictionaries', () => {
    it('lists newest first with the status filter 全部 / 已激活 / 已停止 and a name search', async () => {
        const all = (await get('list?pageNumber=1&pageSize=10')).body.data;
        expect(all.records.map((r: any) => r.deviceName)).toEqual(['gb_cam1', 'gate_cam1']);
        expect((await get('list?pushing=1')).body.data).toEqual({ records: [], total: 0 });
        expect((await get('list?pushing=0')).body.data.total).toBe(2);
        expect((await get('list?deviceName=GATE')).body.data.records.map((r: any) => r.deviceName)).toEqual([
            'gate_cam1',
        ]);
        expect((await get('list?pushing=2')).status).toBe(400);
    });

    it('answers one camera by id, 404 for a plain device or none', async () => {
        const id = (await get('list?deviceName=gate_cam1')).body.data.records[0].deviceId;
        expect((await get(`get?id=${id}`)).body.data.deviceName).toBe('gate_cam1');
        expect((await get('get?id=999999')).body).toEqual({ code: 404, msg: '视频设备不存在' });
        expect((await get('get')).body.msg).toBe('缺少设备ID');
    });

    it('answers the dictionaries by kind 1, 2, 3 as name and code', async () => {
        const types = (await get('dict?kind=1')).body.data;
        expect(types).toContainEqual({ code: '132', name: '网络摄像机(IPC)' });
        expect((await get('dict?kind=2')).body.data[0]).toEqual({ code: '00', name: '社会治安路面接入' });
        expect((await get('dict?kind=3')).body.data).toContainEqual({ code: '7', name: 'Internet网' });
        expect((await get('dict?kind=4')).body.msg).toBe('字典类型kind只能是1、2或3');
    });
});

describe('editing', () => {
    it('edits an rtsp camera: product and protocol stay, an empty password keeps the stored one', async () => {
        const cam = (await get('list?deviceName=gate_cam1')).body.data.records[0];
        const { body } = await call('edit-rtsp', {
            deviceId: cam.deviceId,
            productId: otherProductId,
            protocol: 'gb28181',
            deviceName: 'gate_cam1b',
            host: '10.0.0.9',
            port: 8554,
            username: 'ops',
            password: '',
            uri: '',
            remark: '',
        });
        expect(body.code).toBe(200);
        expect(body.data).toMatchObject({
            productId,
            protocol: 'rtsp',
            deviceName: 'gate_cam1b',
            host: '10.0.0.9',
            port: 8554,
            hasPassword: true,
            uri: '/h264/ch1/sub/av_stream',
        });
        expect(
            (await call('edit-rtsp', { deviceId: cam.deviceId, deviceName: 'gb_cam1', host: 'h', port: 1 })).body,
        ).toMatchObject({ msg: '设备名称已存在' });
    });

    it('edits a gb28181 camera by id, deviceName, manufacturer, remark; refuses the wrong protocol', async () => {
        const gb = (await get('list?deviceName=gb_cam1')).body.data.records[0];
        const { body } = await call('edit-gb28181', {
            id: gb.deviceId,
            deviceName: 'gb_cam1',
            manufacturer: 'Dahua',
            remark: '北门',
        });
        expect(body.data).toMatchObject({ manufacturer: 'Dahua', remark: '北门', protocol: 'gb28181' });
        expect(
            (await call('edit-rtsp', { deviceId: gb.deviceId, deviceName: 'x1', host: 'h', port: 1 })).body.msg,
        ).toBe('该设备不是RTSP设备，不能按RTSP编辑');
        expect((await call('edit-gb28181', { id: gb.deviceId, deviceName: '' })).body.msg).toBe('请输入deviceName！');
    });
});

describe('push and delete', () => {
    it('refuses push for gb28181 without a SIP endpoint and stop push for a stopped camera', async () => {
        const gb = (await get('list?deviceName=gb_cam1')).body.data.records[0];
        // gb28181 push (INVITE / RTP) is tests/server/videoGbPlay.test.ts; this server listens for no SIP.
        expect((await call('push', { projectId: '', deviceId: gb.deviceId })).body).toEqual({
            code: 400,
            msg: 'GB28181 SIP 服务未启动，无法点播',
        });
        const cam = (await get('list?deviceName=gate_cam1b')).body.data.records[0];
        expect((await call('stop-push', { deviceId: cam.deviceId })).body.msg).toBe('该设备未在推流');
        expect((await call('push', { projectId: '', deviceId: 999999 })).body.msg).toBe('视频设备不存在');
    });

    it('deletes a camera and its device', async () => {
        const gb = (await get('list?deviceName=gb_cam1')).body.data.records[0];
        expect((await call(`delete?id=${gb.deviceId}`, undefined, 'DELETE')).body.code).toBe(200);
        expect((await get(`get?id=${gb.deviceId}`)).status).toBe(404);
        const detail = await server.fetch(`/api/device/detail?deviceId=${gb.deviceId}`);
        expect(detail.status).toBe(404);
        expect((await call(`delete?id=${gb.deviceId}`, undefined, 'DELETE')).body.msg).toBe('视频设备不存在');
    });

    it('needs a session', async () => {
        expect((await server.anonFetch('/api/video-device/list')).status).toBe(401);
        expect((await server.anonFetch('/api/video-device/stream?id=1&file=index.m3u8')).status).toBe(401);
    });
});
