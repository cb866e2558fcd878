import { eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { userCreateSchema, userUpdateSchema } from '../../schemas/user';
import type { Tx } from '../db/client';
import { roles, users } from '../db/schema';
import type { AppDeps, AppEnv, Services } from '../deps';
import { expandRights, getUser, listUsers, nextUserCode, otherAdmins, requireRole } from '../domain/people';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { hashPassword, randomPassword } from '../sso/passwords';
import { endUserSessions, forgetSessions } from '../sso/sessions';
import { roleRoutes } from './peopleRoles';
import { ownAccountRoutes, securityRoutes } from './peopleSecurity';

const LAST_ADMIN = '至少需要保留一名启用的管理员';

/**
 * People and rights (docs/roles.md): /api/users (/personnelManage) here, /api/role (/roleList, peopleRoles.ts),
 * /api/security (/safetybutler) and the signed-in user's own profile and password under /api/sso
 * (peopleSecurity.ts). Each operation's right is declared in openapi.yaml (x-right); these handlers do not check it
 * again.
 */

type C = Context<AppEnv>;

async function roleIsAdmin(tx: Tx, roleId: number): Promise<boolean> {
    const [role] = await tx.select({ isAdmin: roles.isAdmin }).from(roles).where(eq(roles.id, roleId));
    return role.isAdmin;
}

/** Refuses a change that takes the last enabled administrator away (disabled, deleted, or given another role). */
async function keepAnAdmin(tx: Tx, user: { id: number; roleId: number; enabled: boolean }) {
    if ((await roleIsAdmin(tx, user.roleId)) && user.enabled && (await otherAdmins(tx, user.id)) === 0)
        throw badRequest(LAST_ADMIN);
}

export async function listPeople(s: Services, c: C) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const keyword = c.req.query('keyword')?.trim() || undefined;
    if (keyword && keyword.length > 50) throw badRequest('搜索内容不得超过50个字符');
    return ok(c, await listUsers(s.db, s.config.timeZone, { keyword, limit: size, offset }));
}

export async function createUser(s: Services, c: C) {
    const { db } = s;
    const input = await validate(userCreateSchema, await readBody(c));
    await requireRole(db, input.roleId);
    const { hash, salt } = await hashPassword(input.password);
    try {
        const id = await db.transaction(async (tx) => {
            const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.username, input.username));
            if (taken) throw conflict('登录名已存在');
            const [row] = await tx
                .insert(users)
                .values({
                    username: input.username,
                    displayName: input.displayName,
                    mobile: input.mobile,
                    userCode: await nextUserCode(tx),
                    roleId: input.roleId,
                    passwordHash: hash,
                    passwordSalt: salt,
                })
                .returning({ id: users.id });
            return row.id;
        });
        return ok(c, await getUser(db, id));
    } catch (err) {
        if (isUniqueViolation(err)) throw conflict('登录名已存在');
        throw err;
    }
}

export async function updateUser(s: Services, c: C) {
    const { db } = s;
    const input = await validate(userUpdateSchema, await readBody(c));
    await requireRole(db, input.roleId);
    await db.transaction(async (tx) => {
        const before = await getUser(tx, input.id);
        if (!(await roleIsAdmin(tx, input.roleId))) await keepAnAdmin(tx, before);
        await tx
            .update(users)
            .set({ displayName: input.displayName, mobile: input.mobile, roleId: input.roleId })
            .where(eq(users.id, input.id));
    });
    forgetSessions(db, input.id);
    return ok(c, await getUser(db, input.id));
}

/** enabled: 1 enables, 0 disables (and ends the user's sessions). */
export async function enableUser(s: Services, c: C) {
    const { db } = s;
    const body = await readBody(c);
    const id = positiveInt(body.id, '缺少用户ID');
    const raw = String(body.enabled ?? '').trim();
    if (raw !== '0' && raw !== '1' && raw !== 'true' && raw !== 'false') throw badRequest('enabled 只能是 0 或 1');
    const enabled = raw === '1' || raw === 'true';
    if (!enabled && id === c.get('user').id) throw badRequest('不能停用当前登录的账号');
    await db.transaction(async (tx) => {
        const user = await getUser(tx, id);
        if (!enabled) await keepAnAdmin(tx, user);
        await tx.update(users).set({ enabled }).where(eq(users.id, id));
    });
    if (!enabled) await endUserSessions(db, id);
    else forgetSessions(db, id);
    return ok(c, await getUser(db, id));
}

/** A new random password, answered once (only its hash is kept); the user's sessions end. */
export async function resetPassword(s: Services, c: C) {
    const id = positiveInt((await readBody(c)).id, '缺少用户ID');
    await getUser(s.db, id);
    const password = randomPassword(12);
    const { hash, salt } = await hashPassword(password);
    await s.db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, id));
    await endUserSessions(s.db, id, id === c.get('user').id ? c.get('token') : undefined);
    return ok(c, { id, password });
}

export async function deleteUser(s: Services, c: C) {
    const id = positiveInt(c.req.query('id'), '缺少用户ID');
    if (id === c.get('user').id) throw badRequest('不能删除当前登录的账号');
    await s.db.transaction(async (tx) => {
        await keepAnAdmin(tx, await getUser(tx, id));
        await tx.delete(users).where(eq(users.id, id));
    });
    forgetSessions(s.db, id);
    return ok(c, null);
}

export function peopleRoutes(s: Services, deps: AppDeps) {
    return new Hono<AppEnv>()
        .get('/users/list', (c) => listPeople(s, c))
        .post('/users/save', (c) => createUser(s, c))
        .post('/users/update', (c) => updateUser(s, c))
        .post('/users/enable', (c) => enableUser(s, c))
        .post('/users/resetPassword', (c) => resetPassword(s, c))
        .delete('/users/delete', (c) => deleteUser(s, c))
        .route('/role', roleRoutes(s))
        .route('/security', securityRoutes(s, deps))
        .route('/sso', ownAccountRoutes(s));
}

/** The rights a user holds, as the console reads them (GET /api/sso/getUserInfo). */
export function userRights(user: { admin: boolean; rights: string[] }): string[] {
    return expandRights(user.admin ? ['*'] : user.rights);
}
