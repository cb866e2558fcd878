import type { TestServer } from '../../server/testing';
import { call, form, type Answer } from './support';

type Json = Record<string, unknown>;
const data = (a: Answer<unknown>) => (a.body as { data: Json }).data;

let made = 0;

/** One successful call per project, staff, user, overview, dashboard, event and device-map operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function projectHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    const newProject = async () => {
        const saved = await call(s(), 'POST', '/api/project/save', form({ name: `契约项目_${made++}`, classId: 1 }));
        return data(saved) as { id: number; code: string };
    };
    const demo = async () => {
        const list = await call(s(), 'GET', '/api/project/listAll');
        return (data(list).list as Array<{ id: number; code: string }>)[0];
    };
    const freeDevice = async () => {
        const list = await call(s(), 'GET', '/api/device/list?pageNumber=1&pageSize=100');
        const free = (data(list).records as Array<{ deviceId: number; projectId: number | null }>).find(
            (d) => d.projectId === null,
        );
        if (!free) throw new Error('no unbound device to associate');
        return free.deviceId;
    };
    const users = async () =>
        (data(await call(s(), 'GET', '/api/user/listAll')).list as Array<{ userId: number }>) ?? [];
    return {
        'GET /api/project/list': () => call(s(), 'GET', '/api/project/list?page=1&size=10'),
        'GET /api/project/get': async () => call(s(), 'GET', `/api/project/get?id=${(await demo()).id}`),
        'GET /api/project/selectCount': () => call(s(), 'GET', '/api/project/selectCount'),
        'POST /api/project/save': () =>
            call(s(), 'POST', '/api/project/save', form({ name: `契约项目_${made++}`, classId: 2, remark: '说明' })),
        'PUT /api/project/update': async () => {
            const p = await newProject();
            return call(s(), 'PUT', '/api/project/update', form({ id: p.id, name: `契约项目_${made++}`, classId: 3 }));
        },
        'DELETE /api/project/delete': async () => {
            const p = await newProject();
            return call(s(), 'DELETE', `/api/project/delete?ids=${p.id}`);
        },
        'GET /api/project/sceneList': () => call(s(), 'GET', '/api/project/sceneList'),
        'POST /api/project/scene/save': () =>
            call(s(), 'POST', '/api/project/scene/save', form({ id: '', name: `契约场景_${made++}` })),
        'DELETE /api/project/scene/delete': async () => {
            const saved = await call(s(), 'POST', '/api/project/scene/save', form({ name: `契约场景_${made++}` }));
            return call(s(), 'DELETE', `/api/project/scene/delete?id=${data(saved).id as number}`);
        },
        'GET /api/project/associateDevice': async () => {
            const p = await newProject();
            return call(s(), 'GET', `/api/project/associateDevice?projectId=${p.id}&deviceId=${await freeDevice()}`);
        },
        'GET /api/project-user/getUserList': async () =>
            call(s(), 'GET', `/api/project-user/getUserList?projectCode=${(await demo()).code}`),
        'POST /api/project-user/addUser': async () => {
            const p = await newProject();
            const [u] = await users();
            return call(
                s(),
                'POST',
                '/api/project-user/addUser',
                form({ list: JSON.stringify([{ projectCode: p.code, userId: u.userId }]) }),
            );
        },
        'GET /api/project-user/removeUser': async () => {
            const p = await newProject();
            const [u] = await users();
            const list = JSON.stringify([{ projectCode: p.code, userId: u.userId }]);
            await call(s(), 'POST', '/api/project-user/addUser', form({ list }));
            const staff = data(await call(s(), 'GET', `/api/project-user/getUserList?projectCode=${p.code}`));
            return call(s(), 'GET', `/api/project-user/removeUser?id=${(staff.list as Array<{ id: number }>)[0].id}`);
        },
        'GET /api/user/listAll': () => call(s(), 'GET', '/api/user/listAll?phoneNumber=138'),
        'GET /api/overview/deviceStatus': async () =>
            call(s(), 'GET', `/api/overview/deviceStatus?projectId=${(await demo()).id}`),
        'GET /api/overview/deviceType': async () =>
            call(s(), 'GET', `/api/overview/deviceType?projectId=${(await demo()).id}`),
        'GET /api/overview/alertType': async () =>
            call(s(), 'GET', `/api/overview/alertType?projectId=${(await demo()).id}`),
        'GET /api/overview/alertList': async () =>
            call(s(), 'GET', `/api/overview/alertList?projectId=${(await demo()).id}&pageNumber=1&pageSize=10`),
        'GET /api/overview/health': async () =>
            call(s(), 'GET', `/api/overview/health?projectId=${(await demo()).id}&days=30`),
        'GET /api/dashboard/count': () => call(s(), 'GET', '/api/dashboard/count'),
        'GET /api/event/countByType': () => call(s(), 'GET', '/api/event/countByType'),
        'GET /api/event/list': () => call(s(), 'GET', '/api/event/list?pageNumber=1&pageSize=10'),
        'GET /api/device/getCntGroupByCate': () => call(s(), 'GET', '/api/device/getCntGroupByCate'),
        'GET /api/device/queryLonLatList': () => call(s(), 'GET', '/api/device/queryLonLatList'),
        'GET /api/device/queryLonLatClusters': () =>
            call(s(), 'GET', '/api/device/queryLonLatClusters?zoom=4&bbox=73,18,135,54'),
    };
}
