import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { TestServer } from '../../server/testing';
import { call, form, productForm, type Answer } from './support';
import { listForm } from './devicesSupport';

interface Made {
    deviceId: number;
    deviceName: string;
}

/**
 * Uploads must not land in the repository's ./data/files (the default of a test server built from loadConfig({})):
 * the cases point the server at a temporary directory first, removed after the file's tests. The router reads
 * config.filesDir on each call.
 */
const tempDirs: string[] = [];
function ensureTempFilesDir(s: TestServer) {
    if (s.config.filesDir === path.join(s.config.dataDir, 'files')) {
        s.config.filesDir = mkdtempSync(path.join(os.tmpdir(), 'iot-contract-files-'));
        tempDirs.push(s.config.filesDir);
    }
}

/** One successful call per tag, device file and sub-device operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function detailHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    // Called while contract.test.ts is collected, so this hook belongs to that file.
    afterAll(() => {
        for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    let n = 0;
    const s = () => server();
    const products: Partial<Record<0 | 1, string>> = {};
    const productKey = async (nodeType: 0 | 1) => {
        if (!products[nodeType]) {
            const saved = await call(s(), 'POST', '/api/product/save', form(productForm({ nodeType })));
            products[nodeType] = (saved.body.data as { productKey: string }).productKey;
        }
        return products[nodeType];
    };
    const make = async (nodeType: 0 | 1 = 0): Promise<Made> => {
        const answer = await call(
            s(),
            'POST',
            '/api/device/save',
            form({ productKey: await productKey(nodeType), deviceName: `detail_${n++}` }),
        );
        return answer.body.data as Made;
    };
    const upload = async (deviceId: number) => {
        ensureTempFilesDir(s());
        const body = new FormData();
        body.set('deviceId', String(deviceId));
        body.set('file', new File(['{"interval":30}'], '配置.json', { type: 'application/json' }));
        return call(s(), 'POST', '/api/device/file/upload', { body });
    };
    const fileId = async () => {
        const up = await upload((await make()).deviceId);
        return (up.body.data as { fileId: number }).fileId;
    };
    const gatewayWithChild = async () => {
        const gw = await make(1);
        const child = await make(0);
        await call(s(), 'POST', '/api/device/subDevice/add', listForm({ gwId: gw.deviceId, deviceId: child.deviceId }));
        return { gw, child };
    };
    const saveTags = async (deviceId: number) => {
        const items = JSON.stringify([
            { key: 'coordinate', value: '31.2,121.6' },
            { key: 'floor', value: '3F' },
        ]);
        return call(s(), 'POST', '/api/tag/save', form({ type: 2, objectId: deviceId, items, addr: '上海市浦东新区' }));
    };

    return {
        'GET /api/tag/get': async () => {
            const d = await make();
            await saveTags(d.deviceId);
            return call(s(), 'GET', `/api/tag/get?type=2&objectId=${d.deviceId}`);
        },
        'GET /api/tag/list': async () => {
            const d = await make();
            await saveTags(d.deviceId);
            return call(s(), 'GET', `/api/tag/list?objectId=${d.deviceId}&type=2`);
        },
        'POST /api/tag/save': async () => saveTags((await make()).deviceId),
        'POST /api/tag/delete': async () => {
            const d = await make();
            const saved = await saveTags(d.deviceId);
            const [tag] = (saved.body.data as { list: Array<{ id: number }> }).list;
            return call(s(), 'POST', '/api/tag/delete', form({ id: tag.id, objectId: d.deviceId, type: 2 }));
        },
        'GET /api/device/file/list': async () => {
            const d = await make();
            await upload(d.deviceId);
            return call(s(), 'GET', `/api/device/file/list?deviceId=${d.deviceId}&pageNumber=1&pageSize=10`);
        },
        'POST /api/device/file/upload': async () => upload((await make()).deviceId),
        'GET /api/device/file/download': async () =>
            call(s(), 'GET', `/api/device/file/download?fileId=${await fileId()}`),
        'POST /api/device/file/delete': async () =>
            call(s(), 'POST', '/api/device/file/delete', form({ fileId: await fileId() })),
        'GET /api/device/subDevice/list': async () => {
            const { gw } = await gatewayWithChild();
            return call(s(), 'GET', `/api/device/subDevice/list?gwId=${gw.deviceId}&pageNumber=1&pageSize=10`);
        },
        'GET /api/device/subDevice/candidates': async () => {
            const gw = await make(1);
            await make(0);
            return call(s(), 'GET', `/api/device/subDevice/candidates?gwId=${gw.deviceId}&pageNumber=1&pageSize=10`);
        },
        'POST /api/device/subDevice/add': async () => {
            const gw = await make(1);
            const a = await make(0);
            const b = await make(0);
            return call(
                s(),
                'POST',
                '/api/device/subDevice/add',
                listForm({ gwId: gw.deviceId, deviceId: [a.deviceId, b.deviceId], remark: '车间电表' }),
            );
        },
        'POST /api/device/subDevice/remove': async () => {
            const { gw, child } = await gatewayWithChild();
            return call(
                s(),
                'POST',
                '/api/device/subDevice/remove',
                form({ gwId: gw.deviceId, deviceId: child.deviceId }),
            );
        },
    };
}
