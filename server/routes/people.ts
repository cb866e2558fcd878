import { and, count, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import { MIN_PASSWORD_LENGTH, MOBILE } from '../../schemas/rules';
import {
    changePasswordSchema,
    profileSchema,
    roleSaveSchema,
    userCreateSchema,
    userUpdateSchema,
} from '../../schemas/user';
import { loginHistory, roles, sessions, users } from '../db/schema';
import type { AppDeps, AppEnv, Services } from '../deps';
import {
    expandRights,
    getUser,
    keepPatterns,
    listRoles,
    listUsers,
    nextUserCode,
    otherAdmins,
    parseMenus,
    parseRights,
    requireRole,
    roleNameTaken,
} from '../domain/people';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';
import { hashPassword, randomPassword, verifyPassword } from '../sso/passwords';
import { endUserSessions, forgetSessions, revokeSession, SESSION_SECONDS, tokenHashOf } from '../sso/sessions';
import { ipThrottleDefaults, usernameThrottleDefaults } from '../sso/throttle';
import { menuIds } from './menu';

const LAST_ADMIN = '至少需要保留一名启用的管理员';

/**
 * People and rights (docs/roles.md): /api/users (/personnelManage), /api/role (/roleList), /api/security
 * (/safetybutler) and the signed-in user's own profile and password under /api/sso. Each operation's right is
 * declared in openapi.yaml (x-right); these handlers do not check it again.
 */
export function peopleRoutes(services: Services, deps: AppDeps) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    // ---- users ----
    app.get('/users/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const keyword = c.req.query('keyword')?.trim() || undefined;
        if (keyword && keyword.length > 50) throw badRequest('搜索内容不得超过50个字符');
        return ok(c, await listUsers(db, tz, { keyword, limit: size, offset }));
    });

    app.post('/users/save', async (c) => {
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
    });

    app.post('/users/update', async (c) => {
        const input = await validate(userUpdateSchema, await readBody(c));
        await requireRole(db, input.roleId);
        await db.transaction(async (tx) => {
            const before = await getUser(tx, input.id);
            const [role] = await tx.select({ isAdmin: roles.isAdmin }).from(roles).where(eq(roles.id, input.roleId));
            const [was] = await tx.select({ isAdmin: roles.isAdmin }).from(roles).where(eq(roles.id, before.roleId));
            if (was.isAdmin && !role.isAdmin && before.enabled && (await otherAdmins(tx, input.id)) === 0)
                throw badRequest(LAST_ADMIN);
            await tx
                .update(users)
                .set({ displayName: input.displayName, mobile: input.mobile, roleId: input.roleId })
                .where(eq(users.id, input.id));
        });
        forgetSessions(db, input.id);
        return ok(c, await getUser(db, input.id));
    });

    // enabled: 1 enables, 0 disables (and ends the user's sessions).
    app.post('/users/enable', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少用户ID');
        const raw = String(body.enabled ?? '').trim();
        if (raw !== '0' && raw !== '1' && raw !== 'true' && raw !== 'false') throw badRequest('enabled 只能是 0 或 1');
        const enabled = raw === '1' || raw === 'true';
        if (!enabled && id === c.get('user').id) throw badRequest('不能停用当前登录的账号');
        await db.transaction(async (tx) => {
            const user = await getUser(tx, id);
            const [role] = await tx.select({ isAdmin: roles.isAdmin }).from(roles).where(eq(roles.id, user.roleId));
            if (!enabled && role.isAdmin && user.enabled && (await otherAdmins(tx, id)) === 0)
                throw badRequest(LAST_ADMIN);
            await tx.update(users).set({ enabled }).where(eq(users.id, id));
        });
        if (!enabled) await endUserSessions(db, id);
        else forgetSessions(db, id);
        return ok(c, await getUser(db, id));
    });

    // A new random password, answered once (only its hash is kept); the user's sessions end.
    app.post('/users/resetPassword', async (c) => {
        const id = positiveInt((await readBody(c)).id, '缺少用户ID');
        await getUser(db, id);
        const password = randomPassword(12);
        const { hash, salt } = await hashPassword(password);
        await db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, id));
        await endUserSessions(db, id, id === c.get('user').id ? c.get('token') : undefined);
        return ok(c, { id, password });
    });

    app.delete('/users/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少用户ID');
        if (id === c.get('user').id) throw badRequest('不能删除当前登录的账号');
        await db.transaction(async (tx) => {
            const user = await getUser(tx, id);
            const [role] = await tx.select({ isAdmin: roles.isAdmin }).from(roles).where(eq(roles.id, user.roleId));
            if (role.isAdmin && user.enabled && (await otherAdmins(tx, id)) === 0) throw badRequest(LAST_ADMIN);
            await tx.delete(users).where(eq(users.id, id));
        });
        forgetSessions(db, id);
        return ok(c, null);
    });

    // ---- roles ----
    app.get('/role/list', async (c) => {
        const list = await listRoles(db, tz);
        return ok(c, { records: list, total: list.length });
    });

    const roleInput = async (body: Record<string, unknown>) => {
        const input = await validate(roleSaveSchema, body);
        const allMenus = String(body.allMenus ?? '').trim();
        const menus = allMenus === '1' || allMenus === 'true' ? null : parseMenus(body.menus, new Set(menuIds()));
        return { name: input.name, remark: input.remark || null, menus, rights: parseRights(body.rights) };
    };

    app.post('/role/save', async (c) => {
        const input = await roleInput(await readBody(c));
        await roleNameTaken(db, input.name);
        try {
            const [row] = await db.insert(roles).values(input).returning({ id: roles.id });
            return ok(
                c,
                (await listRoles(db, tz)).find((r) => r.id === row.id),
            );
        } catch (err) {
            if (isUniqueViolation(err)) throw conflict('角色名称已存在');
            throw err;
        }
    });

    app.post('/role/update', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少角色ID');
        const input = await roleInput(body);
        const role = await requireRoleOr404(id);
        if (role.isAdmin) throw badRequest('管理员角色拥有全部权限，不能修改');
        await roleNameTaken(db, input.name, id);
        // The three built-in roles keep their names (the migration and the docs name them); stored patterns stay.
        const rights = keepPatterns(role.rights ?? [], input.rights);
        const set = role.builtin ? { ...input, name: role.name, rights } : { ...input, rights };
        await db.update(roles).set(set).where(eq(roles.id, id));
        forgetSessions(db);
        return ok(
            c,
            (await listRoles(db, tz)).find((r) => r.id === id),
        );
    });

    app.delete('/role/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少角色ID');
        const role = await requireRoleOr404(id);
        if (role.builtin) throw badRequest('内置角色不能删除');
        const [{ n }] = await db.select({ n: count() }).from(users).where(eq(users.roleId, id));
        if (Number(n) > 0) throw badRequest(`该角色下还有${Number(n)}名人员，请先为他们更换角色`);
        await db.delete(roles).where(eq(roles.id, id));
        return ok(c, null);
    });

    async function requireRoleOr404(id: number) {
        const [role] = await db.select().from(roles).where(eq(roles.id, id));
        if (!role) throw notFound('角色不存在');
        return role;
    }

    // ---- security centre ----
    app.get('/security/loginHistory', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const username = c.req.query('username')?.trim() || undefined;
        if (username && username.length > 50) throw badRequest('登录名不得超过50个字符');
        const result = c.req.query('success')?.trim();
        if (result && result !== '0' && result !== '1') throw badRequest('success 只能是 0 或 1');
        const parts: SQL[] = [];
        if (username) parts.push(sql`strpos(${loginHistory.username}, ${username}) > 0`);
        if (result) parts.push(eq(loginHistory.success, result === '1'));
        const where = parts.length ? and(...parts) : undefined;
        const [rows, [{ n }]] = await Promise.all([
            db
                .select()
                .from(loginHistory)
                .where(where)
                .orderBy(desc(loginHistory.ts), desc(loginHistory.id))
                .limit(size)
                .offset(offset),
            db.select({ n: count() }).from(loginHistory).where(where),
        ]);
        return ok(c, {
            records: rows.map((r) => ({
                id: Number(r.id),
                username: r.username,
                address: r.address,
                userAgent: r.userAgent ?? '',
                success: r.success,
                result: r.result,
                time: formatTime(r.ts, tz),
            })),
            total: Number(n),
        });
    });

    app.get('/security/sessions', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const live = gt(sessions.expiresAt, services.now());
        const mine = tokenHashOf(c.get('token'));
        const [rows, [{ n }]] = await Promise.all([
            db
                .select({
                    id: sessions.id,
                    tokenHash: sessions.tokenHash,
                    userId: users.id,
                    username: users.username,
                    displayName: users.displayName,
                    address: sessions.address,
                    userAgent: sessions.userAgent,
                    createTime: sessions.createTime,
                    expiresAt: sessions.expiresAt,
                })
                .from(sessions)
                .innerJoin(users, eq(users.id, sessions.userId))
                .where(live)
                .orderBy(desc(sessions.createTime), desc(sessions.id))
                .limit(size)
                .offset(offset),
            db.select({ n: count() }).from(sessions).where(live),
        ]);
        return ok(c, {
            records: rows.map(({ tokenHash, ...r }) => ({
                ...r,
                address: r.address ?? '',
                userAgent: r.userAgent ?? '',
                current: tokenHash === mine,
                createTime: formatTime(r.createTime, tz),
                expiresAt: formatTime(r.expiresAt, tz),
            })),
            total: Number(n),
        });
    });

    app.post('/security/revokeSession', async (c) => {
        const id = positiveInt((await readBody(c)).id, '缺少会话ID');
        const [row] = await db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.id, id));
        if (!row) throw notFound('会话不存在或已结束');
        if (row.tokenHash === tokenHashOf(c.get('token'))) throw badRequest('不能注销当前会话，请使用退出登录');
        await revokeSession(db, id);
        return ok(c, null);
    });

    // What the sign-on page enforces: shown on /safetybutler and beside the user centre's password form.
    app.get('/security/settings', (c) => {
        const account = deps.throttle?.username ?? usernameThrottleDefaults;
        const address = deps.throttle?.ip ?? ipThrottleDefaults;
        return ok(c, {
            password: { minLength: MIN_PASSWORD_LENGTH, maxLength: 64 },
            mobilePattern: MOBILE.source,
            lockout: {
                threshold: account.threshold,
                windowSeconds: Math.round(account.windowMs / 1000),
                baseLockSeconds: Math.round(account.baseLockMs / 1000),
                maxLockSeconds: Math.round(account.maxLockMs / 1000),
                addressThreshold: address.threshold,
            },
            sessionSeconds: SESSION_SECONDS,
        });
    });

    // ---- the signed-in user's own ----
    app.post('/sso/updateProfile', async (c) => {
        const input = await validate(profileSchema, await readBody(c));
        const id = c.get('user').id;
        await db.update(users).set({ displayName: input.displayName, mobile: input.mobile }).where(eq(users.id, id));
        forgetSessions(db, id);
        const user = await getUser(db, id);
        return ok(c, { userId: user.id, userName: user.displayName, loginName: user.username, mobile: user.mobile });
    });

    // Ends the user's other sessions; this one stays.
    app.post('/sso/changePassword', async (c) => {
        const input = await validate(changePasswordSchema, await readBody(c));
        const id = c.get('user').id;
        const [row] = await db.select().from(users).where(eq(users.id, id));
        if (!(await verifyPassword(input.oldPassword, row.passwordHash, row.passwordSalt)))
            throw badRequest('原密码错误');
        if (input.oldPassword === input.newPassword) throw badRequest('新密码不能与原密码相同');
        const { hash, salt } = await hashPassword(input.newPassword);
        await db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, id));
        const ended = await endUserSessions(db, id, c.get('token'));
        return ok(c, { endedSessions: ended });
    });

    return app;
}

/** The rights a user holds, as the console reads them (GET /api/sso/getUserInfo). */
export function userRights(user: { admin: boolean; rights: string[] }): string[] {
    return expandRights(user.admin ? ['*'] : user.rights);
}
