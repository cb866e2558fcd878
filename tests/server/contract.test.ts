import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../../server/testing';
import {
    answered,
    call,
    form,
    json,
    operations,
    productForm,
    propertyFunction,
    protectedOperations,
    type Answer,
} from './support';
import { deviceHappyCases } from './devicesContract';
import { detailHappyCases } from './detailContract';
import { groupHappyCases } from './groupsContract';
import { projectHappyCases } from './projectsContract';
import { ruleHappyCases } from './rulesContract';
import { simulationHappyCases } from './simulationContract';
import { helpHappyCases } from './helpContract';
import { telemetryHappyCases } from './telemetryContract';
import { accessHappyCases } from './accessContract';
import { peopleHappyCases } from './peopleContract';
import { subscriptionHappyCases } from './subscriptionContract';
import { videoHappyCases } from './videoContract';
import { edgeHappyCases } from './edgeContract';
import { otaHappyCases } from './otaContract';
import { remoteConfigHappyCases } from './remoteConfigContract';
import { forwardHappyCases } from './forwardContract';
import { topologyHappyCases } from './topologyContract';
import { dataScriptHappyCases } from './dataScriptContract';

let s: TestServer;
let product: { productId: number; productKey: string };

beforeAll(async () => {
    s = await createTestServer();
    const list = await call(s, 'GET', '/api/product?pageNumber=1&pageSize=1&productName=智能路灯');
    product = (list.body.data as { records: Array<{ productId: number; productKey: string }> }).records[0];
});
const access = accessHappyCases(() => s);
const video = videoHappyCases(() => s);
afterAll(async () => {
    // Simulated devices (the simulation cases) leave before the broker closes, as at a server's stop.
    await s?.simulator.close();
    await access.stop();
    await video.stop();
    await s?.close();
});

const data = (a: Answer) => a.body.data as Record<string, unknown>;

/** One successful call per operation in openapi.yaml; a path added to the contract needs a case here. */
const happy: Record<string, () => Promise<Answer<unknown>>> = {
    'GET /api/geo/config': () => call(s, 'GET', '/api/geo/config'),
    'GET /api/geo/reverse': () => call(s, 'GET', '/api/geo/reverse?lng=121.4737&lat=31.2304'),
    'GET /api/geo/search': () => call(s, 'GET', `/api/geo/search?keyword=${encodeURIComponent('浦东')}&city=上海市`),
    'GET /api/geo/outlines': () => call(s, 'GET', '/api/geo/outlines?level=province'),
    'GET /sso/session': () => call(s, 'GET', '/sso/session?redirect=/product', { anonymous: true }),
    'GET /sso/login': () => call(s, 'GET', '/sso/login?redirect=/product', { anonymous: true }),
    'POST /sso/login': () =>
        call(s, 'POST', '/sso/login', {
            anonymous: true,
            ...form({ username: 'admin', password: TEST_ADMIN_PASSWORD, redirect: '/product' }),
        }),
    'GET /api/sso/getUserInfo': () => call(s, 'GET', '/api/sso/getUserInfo'),
    'GET /api/sso/logout': async () => {
        // Sign in a second session, so logging it out leaves the shared one alone.
        const login = await s.anonFetch('/sso/login', {
            method: 'POST',
            body: new URLSearchParams({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
        });
        const cookie = login.headers.get('set-cookie')!.split(';')[0];
        return call(s, 'GET', '/api/sso/logout', { headers: { cookie } });
    },
    'GET /api/menu': () => call(s, 'GET', '/api/menu'),
    'GET /api/project/listAll': () => call(s, 'GET', '/api/project/listAll'),
    'GET /api/project/select': () => call(s, 'GET', '/api/project/select'),
    'GET /api/product': () => call(s, 'GET', '/api/product?pageNumber=1&pageSize=10'),
    'DELETE /api/product': async () => {
        const created = await call(s, 'POST', '/api/product/save', form(productForm()));
        return call(s, 'DELETE', `/api/product?productId=${data(created).productId}`);
    },
    'POST /api/product/save': () =>
        call(s, 'POST', '/api/product/save', form(productForm({ projectCode: 'P2024001' }))),
    'POST /api/product/update': () =>
        call(
            s,
            'POST',
            '/api/product/update',
            form({ productId: product.productId, productName: '智能路灯_L1', remark: '更新' }),
        ),
    'GET /api/product/detail': () => call(s, 'GET', `/api/product/detail?productId=${product.productId}`),
    'GET /api/product/list-category': () => call(s, 'GET', '/api/product/list-category'),
    'GET /api/product/list-network': () => call(s, 'GET', '/api/product/list-network?type=1'),
    'GET /api/product/list-product': () => call(s, 'GET', '/api/product/list-product'),
    'POST /api/product/GetThingModel': () =>
        call(s, 'POST', '/api/product/GetThingModel', form({ productId: product.productId })),
    'GET /api/function/list': () => call(s, 'GET', `/api/function/list?productId=${product.productId}&type=event`),
    'GET /api/function/get': async () => {
        const list = await call(s, 'GET', `/api/function/list?productId=${product.productId}`);
        const first = (data(list).records as Array<{ id: number }>)[0];
        return call(s, 'GET', `/api/function/get?id=${first.id}`);
    },
    'POST /api/function/save': () => call(s, 'POST', '/api/function/save', json(propertyFunction(product.productId))),
    'DELETE /api/function/delete': async () => {
        const saved = await call(s, 'POST', '/api/function/save', json(propertyFunction(product.productId)));
        return call(s, 'DELETE', `/api/function/delete?id=${data(saved).id}`);
    },
    'GET /api/function/data-types': () => call(s, 'GET', '/api/function/data-types'),
    'GET /api/function/units': () => call(s, 'GET', '/api/function/units'),
    'GET /api/function/standard': () => call(s, 'GET', '/api/function/standard?categoryId=3'),
    'POST /api/function/import': async () => {
        const created = await call(s, 'POST', '/api/product/save', form(productForm()));
        const model = await call(s, 'GET', `/api/function/export?productId=${product.productId}`);
        return call(
            s,
            'POST',
            '/api/function/import',
            json({ productId: data(created).productId, thingModel: data(model) }),
        );
    },
    'GET /api/function/export': () => call(s, 'GET', `/api/function/export?productId=${product.productId}`),
    'GET /api/topic/list': () => call(s, 'GET', `/api/topic/list?productKey=${product.productKey}&deviceName=lamp01`),
    'POST /ms3/productLog/find': () => call(s, 'POST', '/ms3/productLog/find', form({ page: 1, size: 2 })),
    'POST /ms3/productLog/save': () => call(s, 'POST', '/ms3/productLog/save', form({ log: '修复了若干问题' })),
    'POST /ms3/productLog/delete': async () => {
        const saved = await call(s, 'POST', '/ms3/productLog/save', form({ log: '待删除' }));
        return call(s, 'POST', '/ms3/productLog/delete', form({ id: data(saved).id as number }));
    },
    'GET /api/log/messages': () =>
        call(s, 'GET', `/api/log/messages?productKey=${product.productKey}&direction=status&pageNumber=1&pageSize=5`),
    'GET /api/log/alerts': () => call(s, 'GET', '/api/log/alerts?pageNumber=1&pageSize=10'),
    ...deviceHappyCases(
        () => s,
        () => product,
    ),
    ...detailHappyCases(() => s),
    ...telemetryHappyCases(() => s),
    ...projectHappyCases(() => s),
    ...groupHappyCases(() => s),
    ...access.cases,
    ...simulationHappyCases(() => s),
    ...ruleHappyCases(() => s),
    ...subscriptionHappyCases(() => s),
    ...peopleHappyCases(() => s),
    ...helpHappyCases(() => s),
    ...video.cases,
    ...edgeHappyCases(() => s),
    ...otaHappyCases(() => s),
    ...remoteConfigHappyCases(() => s),
    ...forwardHappyCases(() => s),
    ...topologyHappyCases(() => s),
    ...dataScriptHappyCases(() => s),
};

/** The success envelope each x-success-rule names (docs/platform-api.md). */
const SUCCESS: Record<string, Record<string, unknown>> = {
    code200: { code: 200 },
    code0: { code: 0 },
    returnCode1111: { returnCode: '1111' },
    returnCode0: { returnCode: 0 },
};

describe('openapi.yaml, answered by the server', () => {
    it('has a case here for every operation it declares', () => {
        expect(Object.keys(happy).sort()).toEqual(operations.map((o) => `${o.method} ${o.path}`).sort());
    });

    it.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))(
        '%s answers with its success envelope',
        async (key, o) => {
            const answer = await happy[key]();
            expect(answered.has(`${o.method} ${o.path} ${answer.status}`)).toBe(true);
            if (o.path === '/sso/login' && o.method === 'POST') {
                expect(answer.status).toBe(302);
                return;
            }
            expect(answer.status).toBe(200);
            const rule = o.op['x-success-rule'] as string | undefined;
            expect(rule ?? (o.path.startsWith('/sso/') ? undefined : 'missing')).not.toBe('missing');
            // Files (the import template, the export) answer CSV, not an envelope.
            if (typeof answer.body !== 'object' || rule === undefined) return;
            const expected = o.path.startsWith('/ms3/') ? { code: '000000' } : SUCCESS[rule];
            expect(answer.body).toMatchObject(expected);
        },
    );

    it.each(protectedOperations.map((o) => [`${o.method} ${o.path}`, o] as const))(
        '%s refuses a call without a session: 401 with the login URL',
        async (_key, o) => {
            const init = o.method === 'GET' || o.method === 'DELETE' ? {} : form({});
            const answer = await call(s, o.method, o.path, { anonymous: true, ...init });
            expect(answer.status).toBe(401);
            expect(answer.body).toEqual({
                code: 401,
                msg: '登录已过期，请重新登录',
                data: { loginUrl: '/sso/login?redirect=%2F' },
            });
        },
    );

    it('answers an unknown API path with the envelope, after authentication', async () => {
        const res = await s.fetch('/api/no-such-thing');
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ code: 404, msg: '接口不存在' });
        expect((await s.anonFetch('/ms2/anything')).status).toBe(401);
        expect((await s.anonFetch('/f/anything')).status).toBe(401);
    });
});
