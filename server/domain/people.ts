import { and, asc, count, desc, eq, ne, sql, type SQL } from 'drizzle-orm';
import { ADMIN_ROLE_ID, ALL_RIGHTS, isKnownRight } from '../../schemas/rights';
import type { Db, Tx } from '../db/client';
import { roles, users } from '../db/schema';
import { badRequest, conflict, notFound } from '../http/errors';
import { formatTime } from '../http/time';
import { grants } from '../rights/check';

/** A user row as /personnelManage lists it (never the password hash). */
const userColumns = {
    id: users.id,
    displayName: users.displayName,
    username: users.username,
    mobile: users.mobile,
    userCode: users.userCode,
    roleId: users.roleId,
    roleName: roles.name,
    enabled: users.enabled,
    createTime: users.createTime,
};

export async function listUsers(db: Db, timeZone: string, opts: { keyword?: string; limit: number; offset: number }) {
    const where: SQL | undefined = opts.keyword
        ? sql`(strpos(${users.displayName}, ${opts.keyword}) > 0 OR strpos(${users.username}, ${opts.keyword}) > 0 OR strpos(coalesce(${users.mobile}, ''), ${opts.keyword}) > 0)`
        : undefined;
    const [rows, [{ n }]] = await Promise.all([
        db
            .select(userColumns)
            .from(users)
            .innerJoin(roles, eq(roles.id, users.roleId))
            .where(where)
            .orderBy(desc(users.id))
            .limit(opts.limit)
            .offset(opts.offset),
        db.select({ n: count() }).from(users).where(where),
    ]);
    return {
        records: rows.map((r) => ({ ...r, status: r.enabled ? 1 : 0, createTime: formatTime(r.createTime, timeZone) })),
        total: Number(n),
    };
}

export async function getUser(db: Db | Tx, id: number) {
    const [row] = await db
        .select(userColumns)
        .from(users)
        .innerJoin(roles, eq(roles.id, users.roleId))
        .where(eq(users.id, id));
    if (!row) throw notFound('用户不存在');
    return row;
}

export async function requireRole(db: Db | Tx, id: number) {
    const [row] = await db.select().from(roles).where(eq(roles.id, id));
    if (!row) throw badRequest('角色不存在');
    return row;
}

/** Enabled administrators other than `exceptId`: the last one may not be deleted, disabled or demoted. */
export async function otherAdmins(tx: Tx, exceptId: number): Promise<number> {
    const [{ n }] = await tx
        .select({ n: count() })
        .from(users)
        .innerJoin(roles, eq(roles.id, users.roleId))
        .where(and(eq(roles.isAdmin, true), eq(users.enabled, true), ne(users.id, exceptId)));
    return Number(n);
}

/** A new user code U + 6 digits after the largest. */
export async function nextUserCode(tx: Tx): Promise<string> {
    const [row] = await tx
        .select({
            n: sql<number>`coalesce(max(substring(${users.userCode} from 2)::bigint) filter (where ${users.userCode} ~ '^U[0-9]{6,9}$'), 0)`,
        })
        .from(users);
    return `U${String(Number(row.n) + 1).padStart(6, '0')}`;
}

export async function listRoles(db: Db, timeZone: string) {
    const rows = await db
        .select({
            id: roles.id,
            name: roles.name,
            remark: roles.remark,
            builtin: roles.builtin,
            isAdmin: roles.isAdmin,
            menus: roles.menus,
            rights: roles.rights,
            createTime: roles.createTime,
            userCount: sql<number>`(select count(*)::int from ${users} where ${users.roleId} = ${roles.id})`,
        })
        .from(roles)
        .orderBy(asc(roles.id));
    return rows.map((r) => ({
        ...r,
        userCount: Number(r.userCount),
        allMenus: r.menus === null,
        rights: expandRights(r.isAdmin ? ['*'] : (r.rights ?? [])),
        createTime: formatTime(r.createTime, timeZone),
    }));
}

/** Stored patterns as the concrete rights of the catalogue (what the console ticks and hides buttons by). */
export function expandRights(patterns: string[]): string[] {
    return ALL_RIGHTS.filter((right) => patterns.some((p) => grants(p, right)));
}

/**
 * The rights to store when a role's form sends the ticked (concrete) rights: a stored pattern (`*.create`,
 * `device.*`, the built-in roles') stays while every right it covers is still ticked, so saving unchanged keeps the
 * exact rights, and a family or action added later is still granted; the ticked rights no kept pattern covers are
 * added as they are. A pattern is dropped, its other rights kept one by one, when one of them is unticked.
 */
export function keepPatterns(stored: string[], ticked: string[]): string[] {
    const want = new Set(ticked);
    const kept = stored.filter((p) => expandRights([p]).every((r) => want.has(r)));
    return [...kept, ...ticked.filter((r) => !kept.some((p) => grants(p, r)))];
}

/** Rights from a form: a JSON array or a comma list of known `family.action` names. */
export function parseRights(raw: unknown): string[] {
    let list: unknown = raw ?? [];
    if (typeof raw === 'string') {
        const text = raw.trim();
        if (text === '') list = [];
        else if (text.startsWith('[')) {
            try {
                list = JSON.parse(text);
            } catch {
                throw badRequest('权限格式错误');
            }
        } else list = text.split(',');
    }
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'string')) throw badRequest('权限格式错误');
    const rights = [...new Set((list as string[]).map((r) => r.trim()).filter(Boolean))];
    const unknown = rights.find((r) => !isKnownRight(r) || r === 'admin' || r === 'signedIn');
    if (unknown) throw badRequest(`未知的权限：${unknown.slice(0, 50)}`);
    return rights;
}

/**
 * What a menu right looks like when schemas/menu.ts does not list it: the right a console definition's `menu`
 * declares (`menu.right`, default the resource's name), so an integrator's new entry can be granted without a
 * server edit (docs/adding-a-resource.md). Anything else is refused.
 */
export const MENU_RIGHT_PATTERN = /^[a-zA-Z][\w.:-]{0,63}$/;

/** At most this many menu rights in one role. */
export const MAX_MENU_RIGHTS = 200;

/** Menu ids from a form (JSON array or comma list); null when `allMenus` is set. */
export function parseMenus(raw: unknown, known: Set<string>): string[] {
    let list: unknown = raw ?? [];
    if (typeof raw === 'string') {
        const text = raw.trim();
        if (text === '') list = [];
        else if (text.startsWith('[')) {
            try {
                list = JSON.parse(text);
            } catch {
                throw badRequest('菜单格式错误');
            }
        } else list = text.split(',');
    }
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'string')) throw badRequest('菜单格式错误');
    const menus = [...new Set((list as string[]).map((r) => r.trim()).filter(Boolean))];
    const unknown = menus.find((m) => !known.has(m) && !MENU_RIGHT_PATTERN.test(m));
    if (unknown)
        throw badRequest(
            `未知的菜单：${unknown.slice(0, 50)}（菜单权限须以字母开头，只含字母、数字、_ . : -，最长64个字符）`,
        );
    if (menus.length > MAX_MENU_RIGHTS) throw badRequest(`菜单不能超过${MAX_MENU_RIGHTS}项`);
    return menus;
}

export async function roleNameTaken(db: Db | Tx, name: string, exceptId?: number) {
    const [row] = await db
        .select({ id: roles.id })
        .from(roles)
        .where(and(eq(roles.name, name), exceptId ? ne(roles.id, exceptId) : undefined));
    if (row) throw conflict('角色名称已存在');
}

export const isAdminRole = (roleId: number) => roleId === ADMIN_ROLE_ID;
