import { and, count, desc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { MIN_PASSWORD_LENGTH, MOBILE } from '../../schemas/rules';
import { changePasswordSchema, profileSchema } from '../../schemas/user';
import { loginHistory, sessions, users } from '../db/schema';
import type { AppDeps, AppEnv, Services } from '../deps';
import { getUser } from '../domain/people';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';
import { formatTime } from '../http/time';
import { hashPassword, verifyPassword } from '../sso/passwords';
import { endUserSessions, forgetSessions, revokeSession, SESSION_SECONDS, tokenHashOf } from '../sso/sessions';
import { ipThrottleDefaults, usernameThrottleDefaults } from '../sso/throttle';

/** The security centre (/api/security, /safetybutler) and the signed-in user's own profile and password (/api/sso). */

type C = Context<AppEnv>;

/** The login history's filter: a part of the login name, and success 0 or 1. */
export function loginHistoryFilter(username: string | undefined, success: string | undefined): SQL | undefined {
    if (username && username.length > 50) throw badRequest('登录名不得超过50个字符');
    if (success && success !== '0' && success !== '1') throw badRequest('success 只能是 0 或 1');
    const parts: SQL[] = [];
    if (username) parts.push(sql`strpos(${loginHistory.username}, ${username}) > 0`);
    if (success) parts.push(eq(loginHistory.success, success === '1'));
    return parts.length ? and(...parts) : undefined;
}

export async function listLoginHistory(s: Services, c: C) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const where = loginHistoryFilter(c.req.query('username')?.trim() || undefined, c.req.query('success')?.trim());
    const [rows, [{ n }]] = await Promise.all([
        s.db
            .select()
            .from(loginHistory)
            .where(where)
            .orderBy(desc(loginHistory.ts), desc(loginHistory.id))
            .limit(size)
            .offset(offset),
        s.db.select({ n: count() }).from(loginHistory).where(where),
    ]);
    return ok(c, {
        records: rows.map((r) => ({
            id: Number(r.id),
            username: r.username,
            address: r.address,
            userAgent: r.userAgent ?? '',
            success: r.success,
            result: r.result,
            time: formatTime(r.ts, s.config.timeZone),
        })),
        total: Number(n),
    });
}

/** Live sessions, the caller's own marked current. */
export async function listSessions(s: Services, c: C) {
    const tz = s.config.timeZone;
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const live = gt(sessions.expiresAt, s.now());
    const mine = tokenHashOf(c.get('token'));
    const [rows, [{ n }]] = await Promise.all([
        s.db
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
        s.db.select({ n: count() }).from(sessions).where(live),
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
}

export async function revokeOtherSession(s: Services, c: C) {
    const id = positiveInt((await readBody(c)).id, '缺少会话ID');
    const [row] = await s.db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.id, id));
    if (!row) throw notFound('会话不存在或已结束');
    if (row.tokenHash === tokenHashOf(c.get('token'))) throw badRequest('不能注销当前会话，请使用退出登录');
    await revokeSession(s.db, id);
    return ok(c, null);
}

/** What the sign-on page enforces: shown on /safetybutler and beside the user centre's password form. */
export function securitySettings(deps: AppDeps) {
    const account = deps.throttle?.username ?? usernameThrottleDefaults;
    const address = deps.throttle?.ip ?? ipThrottleDefaults;
    return {
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
    };
}

export async function updateProfile(s: Services, c: C) {
    const input = await validate(profileSchema, await readBody(c));
    const id = c.get('user').id;
    await s.db.update(users).set({ displayName: input.displayName, mobile: input.mobile }).where(eq(users.id, id));
    forgetSessions(s.db, id);
    const user = await getUser(s.db, id);
    return ok(c, { userId: user.id, userName: user.displayName, loginName: user.username, mobile: user.mobile });
}

/** Ends the user's other sessions; this one stays. */
export async function changePassword(s: Services, c: C) {
    const input = await validate(changePasswordSchema, await readBody(c));
    const id = c.get('user').id;
    const [row] = await s.db.select().from(users).where(eq(users.id, id));
    if (!(await verifyPassword(input.oldPassword, row.passwordHash, row.passwordSalt))) throw badRequest('原密码错误');
    if (input.oldPassword === input.newPassword) throw badRequest('新密码不能与原密码相同');
    const { hash, salt } = await hashPassword(input.newPassword);
    await s.db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, id));
    const ended = await endUserSessions(s.db, id, c.get('token'));
    return ok(c, { endedSessions: ended });
}

export function securityRoutes(s: Services, deps: AppDeps) {
    return new Hono<AppEnv>()
        .get('/loginHistory', (c) => listLoginHistory(s, c))
        .get('/sessions', (c) => listSessions(s, c))
        .post('/revokeSession', (c) => revokeOtherSession(s, c))
        .get('/settings', (c) => ok(c, securitySettings(deps)));
}

export function ownAccountRoutes(s: Services) {
    return new Hono<AppEnv>()
        .post('/updateProfile', (c) => updateProfile(s, c))
        .post('/changePassword', (c) => changePassword(s, c));
}
