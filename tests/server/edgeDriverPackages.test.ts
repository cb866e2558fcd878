/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value (toMatchObject), not by type */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../server/routes/edgeDriverFiles';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct } from './devicesSupport';
import { call, form } from './support';

/**
 * Driver packages: a driver version is uploaded with its file (multipart), keeps its size and SHA-256, is listed
 * among the name's versions and downloaded byte for byte; bad uploads are refused with their message and store
 * nothing; a version an instance runs cannot be deleted, another one goes with its file.
 */

let s: TestServer;
const data = <T = any>(a: { body: unknown }) => (a.body as { data: T }).data;
const msg = (a: { body: unknown }) => (a.body as { msg: string }).msg;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const stored = () => (existsSync(packageDir(s.config.filesDir)) ? readdirSync(packageDir(s.config.filesDir)) : []);

function upload(fields: Record<string, string>, file?: { bytes: Uint8Array<ArrayBuffer>; name: string }) {
    const body = new FormData();
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    if (file) body.set('file', new File([file.bytes], file.name));
    return call(s, 'POST', '/api/edge/driver/upload', { body });
}

const v1 = new Uint8Array(Array.from({ length: 5000 }, (_, i) => i % 251));
const v2 = new Uint8Array(Array.from({ length: 7000 }, (_, i) => (i * 7) % 253));
const modbus = { name: 'modbus_pkg', protocol: 'modbus_tcp', configSchema: '{"type":"object"}' };

beforeAll(async () => {
    s = await createTestServer();
});
afterAll(async () => {
    await s?.close();
});

describe('driver packages', () => {
    it('refuses bad uploads with their message and stores nothing', async () => {
        const file = { bytes: v1, name: 'modbus.zip' };
        expect(msg(await upload({ ...modbus, version: '1.0' }, file))).toBe('版本号格式为x.y.z，例如1.0.0');
        expect(msg(await upload({ ...modbus, version: '1.0.0', configSchema: '[1' }, file))).toMatch(/配置模板/);
        expect(msg(await upload({ ...modbus, version: '1.0.0', protocol: 'x' }, file))).toBe('请选择协议类型');
        expect(msg(await upload({ ...modbus, version: '1.0.0' }))).toBe('请选择驱动包文件');
        const empty = await upload({ ...modbus, version: '1.0.0' }, { bytes: new Uint8Array(), name: 'a.zip' });
        expect([empty.status, msg(empty)]).toEqual([400, '驱动包文件为空']);
        const plain = await call(s, 'POST', '/api/edge/driver/upload', form({ ...modbus, version: '1.0.0' }));
        expect([plain.status, msg(plain)]).toEqual([400, '请选择驱动包文件']);
        expect(stored()).toEqual([]);
        expect(data(await call(s, 'GET', '/api/edge/driver/list?pageNumber=1&pageSize=10')).total).toBe(0);
    });

    it('keeps each version with its size and SHA-256, lists the versions, downloads the bytes', async () => {
        const first = await upload({ ...modbus, version: '1.0.0' }, { bytes: v1, name: 'modbus-1.0.0.zip' });
        expect(first.status).toBe(200);
        expect(data(first)).toMatchObject({
            name: 'modbus_pkg',
            version: '1.0.0',
            fileName: 'modbus-1.0.0.zip',
            fileSize: 5000,
            sha256: sha256(v1),
        });
        await upload({ ...modbus, version: '1.1.0' }, { bytes: v2, name: 'modbus-1.1.0.zip' });
        const again = await upload({ ...modbus, version: '1.1.0' }, { bytes: v1, name: 'x.zip' });
        expect([again.status, msg(again)]).toEqual([409, '该驱动的此版本已存在']);
        expect(stored()).toHaveLength(2);

        const versions = data(await call(s, 'GET', '/api/edge/driver/versions?name=modbus_pkg'));
        expect(versions.map((v: any) => [v.version, v.fileSize, v.sha256])).toEqual([
            ['1.0.0', 5000, sha256(v1)],
            ['1.1.0', 7000, sha256(v2)],
        ]);
        const res = await s.fetch(`/api/edge/driver/download?id=${versions[1].id}`);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        expect(res.headers.get('x-sha256')).toBe(sha256(v2));
        expect(res.headers.get('content-disposition')).toContain('modbus-1.1.0.zip');
        expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(v2));
        expect((await s.anonFetch(`/api/edge/driver/download?id=${versions[1].id}`)).status).toBe(401);
    });

    it('refuses to delete a version an instance runs; another version goes with its file', async () => {
        const [used, spare] = data(await call(s, 'GET', '/api/edge/driver/versions?name=modbus_pkg'));
        const gw = await createDevice(s, (await createProduct(s, { nodeType: 1 })).productKey);
        const inst = data(
            await call(s, 'POST', '/api/edge/instance/save', form({ name: 'pkg_edge', gatewayId: gw.deviceId })),
        );
        const run = form({ instanceId: inst.id, driverId: used.id, config: '{}' });
        expect((await call(s, 'POST', '/api/edge/instance/driver/save', run)).status).toBe(200);

        const refused = await call(s, 'DELETE', `/api/edge/driver/delete?id=${used.id}`);
        expect([refused.status, msg(refused)]).toEqual([400, '该驱动正被1个边缘实例使用，不能删除']);
        expect((await s.fetch(`/api/edge/driver/download?id=${used.id}`)).status).toBe(200);

        expect((await call(s, 'DELETE', `/api/edge/driver/delete?id=${spare.id}`)).status).toBe(200);
        expect(stored()).toHaveLength(1);
        const left = data(await call(s, 'GET', '/api/edge/driver/versions?name=modbus_pkg'));
        expect(left.map((v: any) => v.version)).toEqual(['1.0.0']);
        expect(msg(await call(s, 'GET', `/api/edge/driver/download?id=${spare.id}`))).toBe('驱动不存在');
    });
});
