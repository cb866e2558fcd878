import { count, eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { roleSaveSchema } from '../../schemas/user';
import type { Db } from '../db/client';
import { roles, users } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { keepPatterns, listRoles, parseMenus, parseRights, roleNameTaken } from '../domain/people';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { forgetSessions } from '../sso/sessions';
import { menuIds } from './menu';

/** /api/role (/roleList): roles with their menus and rights (docs/roles.md). */

type C = Context<AppEnv>;

/** A role's stored values from a save or update body: allMenus (1) or the menus, and the rights. */
export async function roleInput(body: Record<string, unknown>) {
    const input = await validate(roleSaveSchema, body);
    const allMenus = String(body.allMenus ?? '').trim();
    const menus = allMenus === '1' || allMenus === 'true' ? null : parseMenus(body.menus, new Set(menuIds()));
    return { name: input.name, remark: input.remark || null, menus, rights: parseRights(body.rights) };
}

async function requireRoleOr404(db: Db, id: number) {
    const [role] = await db.select().from(roles).where(eq(roles.id, id));
    if (!role) throw notFound('角色不存在');
    return role;
}

const roleById = async (s: Services, id: number) => (await listRoles(s.db, s.config.timeZone)).find((r) => r.id === id);

export async function listRoleRecords(s: Services, c: C) {
    const list = await listRoles(s.db, s.config.timeZone);
    return ok(c, { records: list, total: list.length });
}

export async function createRole(s: Services, c: C) {
    const input = await roleInput(await readBody(c));
    await roleNameTaken(s.db, input.name);
    try {
        const [row] = await s.db.insert(roles).values(input).returning({ id: roles.id });
        return ok(c, await roleById(s, row.id));
    } catch (err) {
        if (isUniqueViolation(err)) throw conflict('角色名称已存在');
        throw err;
    }
}

export async function updateRole(s: Services, c: C) {
    const body = await readBody(c);
    const id = positiveInt(body.id, '缺少角色ID');
    const input = await roleInput(body);
    const role = await requireRoleOr404(s.db, id);
    if (role.isAdmin) throw badRequest('管理员角色拥有全部权限，不能修改');
    await roleNameTaken(s.db, input.name, id);
    // The three built-in roles keep their names (the migration and the docs name them); stored patterns stay.
    const rights = keepPatterns(role.rights ?? [], input.rights);
    const set = role.builtin ? { ...input, name: role.name, rights } : { ...input, rights };
    await s.db.update(roles).set(set).where(eq(roles.id, id));
    forgetSessions(s.db);
    return ok(c, await roleById(s, id));
}

export async function deleteRole(s: Services, c: C) {
    const id = positiveInt(c.req.query('id'), '缺少角色ID');
    const role = await requireRoleOr404(s.db, id);
    if (role.builtin) throw badRequest('内置角色不能删除');
    const [{ n }] = await s.db.select({ n: count() }).from(users).where(eq(users.roleId, id));
    if (Number(n) > 0) throw badRequest(`该角色下还有${Number(n)}名人员，请先为他们更换角色`);
    await s.db.delete(roles).where(eq(roles.id, id));
    return ok(c, null);
}

export function roleRoutes(s: Services) {
    return new Hono<AppEnv>()
        .get('/list', (c) => listRoleRecords(s, c))
        .post('/save', (c) => createRole(s, c))
        .post('/update', (c) => updateRole(s, c))
        .delete('/delete', (c) => deleteRole(s, c));
}
