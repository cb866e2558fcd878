import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from '../../server/testing';
import { makeCertificates } from '../../server/tls/certificates';
import { call, form, type Answer } from './support';

/** One successful call per /api/platform, /api/report and /api/app operation of openapi.yaml, for contract.test.ts. */
export function helpHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    const newApp = async () => {
        const saved = await call(s(), 'POST', '/api/app/save', form({ name: '契约测试应用', domain: '智慧城市' }));
        return (saved.body.data as { id: number }).id;
    };
    return {
        'GET /api/platform/info': () => call(s(), 'GET', '/api/platform/info'),
        'GET /api/platform/ca.pem': async () => {
            // The CA file the start-up would have made (tests/server/tls.test.ts covers the real one).
            const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'ca-contract-')), 'ca.pem');
            writeFileSync(file, (await makeCertificates({ dns: ['localhost'], ip: [] })).caPem);
            Object.assign(s().config, { tls: true, tlsCaFile: file });
            return call(s(), 'GET', '/api/platform/ca.pem');
        },
        'GET /api/report/daily': () => call(s(), 'GET', '/api/report/daily'),
        'GET /api/report/export': () => call(s(), 'GET', '/api/report/export'),
        'GET /api/app/list': () => call(s(), 'GET', '/api/app/list?pageNumber=1&pageSize=10&name=应用'),
        'GET /api/app/get': async () => call(s(), 'GET', `/api/app/get?id=${await newApp()}`),
        'POST /api/app/save': () =>
            call(s(), 'POST', '/api/app/save', form({ name: '契约测试', domain: '工业互联网', description: '说明' })),
        'POST /api/app/publish': async () =>
            call(s(), 'POST', '/api/app/publish', form({ id: await newApp(), publishStatus: 0 })),
        'POST /api/app/activate': async () =>
            call(s(), 'POST', '/api/app/activate', form({ id: await newApp(), activeStatus: 1 })),
        'POST /api/app/use': async () => {
            const id = await newApp();
            await call(s(), 'POST', '/api/app/activate', form({ id, activeStatus: 1 }));
            return call(s(), 'POST', '/api/app/use', form({ id, useStatus: 1 }));
        },
        'DELETE /api/app/delete': async () => call(s(), 'DELETE', `/api/app/delete?id=${await newApp()}`),
        'GET /api/app/alarm/list': async () => call(s(), 'GET', `/api/app/alarm/list?appId=${await newApp()}`),
        'POST /api/app/alarm/save': async () =>
            call(
                s(),
                'POST',
                '/api/app/alarm/save',
                form({ appId: await newApp(), name: '高温', level: 2, notifyType: 'email', receiver: 'a@example.com' }),
            ),
    };
}
