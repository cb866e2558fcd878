import type { TestServer } from '../../server/testing';
import { READONLY_ROLE_ID } from '../../schemas/rights';
import { call, form, type Answer } from './support';
import { signIn } from './rolesSupport';

type Json = Record<string, unknown>;
const data = (a: Answer<unknown>) => (a.body as { data: Json }).data;

let made = 0;

/** One successful call per people, role, security and own-account operation of openapi.yaml, for contract.test.ts. */
export function peopleHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    const newUser = async () => {
        const n = made++;
        const saved = await call(
            s(),
            'POST',
            '/api/users/save',
            form({
                displayName: `契约人员${n}`,
                username: `contract_${n}`,
                mobile: '13912340000',
                password: 'Passw0rd_1',
                roleId: READONLY_ROLE_ID,
            }),
        );
        return { id: (data(saved) as { id: number }).id, username: `contract_${n}`, password: 'Passw0rd_1' };
    };
    const ownSession = async () => {
        const user = await newUser();
        const { token } = await signIn(s(), user.username, user.password);
        return { ...user, headers: { cookie: `Authorization=${token}` } };
    };
    const newRole = async () =>
        data(
            await call(
                s(),
                'POST',
                '/api/role/save',
                form({ name: `契约角色${made++}`, rights: '["device.create"]', allMenus: 1 }),
            ),
        );
    return {
        'GET /api/users/list': () => call(s(), 'GET', '/api/users/list?pageNumber=1&pageSize=10&keyword=admin'),
        'POST /api/users/save': async () =>
            call(
                s(),
                'POST',
                '/api/users/save',
                form({
                    displayName: '契约新人',
                    username: `contract_new_${made++}`,
                    mobile: '13912340001',
                    password: 'Passw0rd_1',
                    roleId: READONLY_ROLE_ID,
                }),
            ),
        'POST /api/users/update': async () => {
            const { id } = await newUser();
            return call(
                s(),
                'POST',
                '/api/users/update',
                form({ id, displayName: '改名', mobile: '13912340002', roleId: 2 }),
            );
        },
        'POST /api/users/enable': async () => {
            const { id } = await newUser();
            return call(s(), 'POST', '/api/users/enable', form({ id, enabled: 0 }));
        },
        'POST /api/users/resetPassword': async () => {
            const { id } = await newUser();
            return call(s(), 'POST', '/api/users/resetPassword', form({ id }));
        },
        'DELETE /api/users/delete': async () => {
            const { id } = await newUser();
            return call(s(), 'DELETE', `/api/users/delete?id=${id}`);
        },
        'GET /api/role/list': () => call(s(), 'GET', '/api/role/list'),
        'POST /api/role/save': () =>
            call(
                s(),
                'POST',
                '/api/role/save',
                form({
                    name: `契约角色${made++}`,
                    remark: '说明',
                    menus: '["deviceInstance"]',
                    rights: 'device.create,device.edit',
                }),
            ),
        'POST /api/role/update': async () => {
            const role = await newRole();
            return call(
                s(),
                'POST',
                '/api/role/update',
                form({ id: role.id as number, name: `改名角色${made++}`, rights: '[]', allMenus: 1 }),
            );
        },
        'DELETE /api/role/delete': async () => {
            const role = await newRole();
            return call(s(), 'DELETE', `/api/role/delete?id=${role.id as number}`);
        },
        'GET /api/security/loginHistory': () =>
            call(s(), 'GET', '/api/security/loginHistory?pageNumber=1&pageSize=10&success=1'),
        'GET /api/security/sessions': () => call(s(), 'GET', '/api/security/sessions?pageNumber=1&pageSize=10'),
        'POST /api/security/revokeSession': async () => {
            const user = await ownSession();
            const list = await call(s(), 'GET', '/api/security/sessions?pageNumber=1&pageSize=100');
            const session = (data(list).records as Array<{ id: number; username: string }>).find(
                (r) => r.username === user.username,
            )!;
            return call(s(), 'POST', '/api/security/revokeSession', form({ id: session.id }));
        },
        'GET /api/security/settings': () => call(s(), 'GET', '/api/security/settings'),
        'POST /api/sso/updateProfile': async () => {
            const user = await ownSession();
            return call(s(), 'POST', '/api/sso/updateProfile', {
                ...form({ displayName: '新名字', mobile: '13712345678' }),
                headers: user.headers,
            });
        },
        'POST /api/sso/changePassword': async () => {
            const user = await ownSession();
            return call(s(), 'POST', '/api/sso/changePassword', {
                ...form({ oldPassword: user.password, newPassword: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' }),
                headers: user.headers,
            });
        },
    };
}
