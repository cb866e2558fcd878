import { getConnInfo } from '@hono/node-server/conninfo';
import { eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { loginHistory, users } from '../db/schema';
import type { AppDeps, AppEnv, Services } from '../deps';
import { isHttps, safeRedirect, sessionCookie } from './auth';
import { LOGIN_PAGE_CSP, renderLoginPage, type LoginPageOptions } from './page';
import { burnPasswordCheck, verifyPassword } from './passwords';
import { createSession } from './sessions';
import { ipThrottleDefaults, LoginThrottle, usernameThrottleDefaults } from './throttle';

function remoteAddress(c: Context): string {
    try {
        return getConnInfo(c).remote.address ?? 'unknown';
    } catch {
        // app.fetch() called in-process (tests, msw) has no socket.
        return 'unknown';
    }
}

const WRONG = '用户名或密码错误';
const DISABLED = '账号已停用，请联系管理员';
const LOCKED = '登录失败次数过多';
const SIGNED_IN = '登录成功';

/** One line of the sign-in history (/safetybutler); a failure to write it does not stop the sign-in. */
async function recordSignIn(
    services: Services,
    entry: { username: string; address: string; userAgent?: string; success: boolean; result: string; userId?: number },
) {
    try {
        await services.db.insert(loginHistory).values({
            username: entry.username.slice(0, 50),
            address: entry.address.slice(0, 100),
            userAgent: entry.userAgent?.slice(0, 300) ?? null,
            success: entry.success,
            result: entry.result,
            userId: entry.userId ?? null,
            ts: services.now(),
        });
    } catch {
        // The history is a record, not a gate.
    }
}

function page(c: Context, status: 200 | 400 | 401 | 429, options: LoginPageOptions) {
    c.header('Content-Security-Policy', LOGIN_PAGE_CSP);
    c.header('Cache-Control', 'no-store');
    return c.html(renderLoginPage(options), status);
}

/** The sign-on service the platform's 401 answers point to: GET shows the page, POST signs in. */
export function ssoPages(services: Services, deps: AppDeps) {
    // Failures count per (account, address) and per address: a stranger's wrong passwords lock out the stranger, not
    // the account's owner signing in from elsewhere.
    const byAccountAddress = new LoginThrottle(deps.throttle?.username ?? usernameThrottleDefaults);
    const byAddress = new LoginThrottle(deps.throttle?.ip ?? ipThrottleDefaults);
    const clientIp = deps.clientIp ?? remoteAddress;
    const app = new Hono<AppEnv>();

    app.get('/login', (c) => page(c, 200, { redirect: safeRedirect(c.req.query('redirect')) }));

    app.post('/login', async (c) => {
        const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
        // The page is answered, not the API envelope: NUL in a name is simply no such user.
        const text = (v: unknown) => (typeof v === 'string' ? v : '');
        const username = text(form.username).trim();
        const password = text(form.password);
        const redirect = safeRedirect(form.redirect);
        if (!username || !password) return page(c, 400, { redirect, username, error: '请输入用户名和密码' });

        const now = services.now().getTime();
        const addressKey = clientIp(c);
        const pairKey = `${username.toLowerCase()}\n${addressKey}`;
        const wait = Math.max(byAccountAddress.retryAfter(pairKey, now), byAddress.retryAfter(addressKey, now));
        const record = (success: boolean, result: string, userId?: number) =>
            recordSignIn(services, {
                username,
                address: addressKey,
                userAgent: c.req.header('user-agent'),
                success,
                result,
                userId,
            });
        if (wait > 0) {
            const seconds = Math.ceil(wait / 1000);
            await record(false, LOCKED);
            c.header('Retry-After', String(seconds));
            return page(c, 429, { redirect, username, error: `登录失败次数过多，请 ${seconds} 秒后再试` });
        }

        const [user] = await services.db.select().from(users).where(eq(users.username, username)).limit(1);
        const valid = user
            ? await verifyPassword(password, user.passwordHash, user.passwordSalt)
            : await burnPasswordCheck(password).then(() => false);
        if (!user || !valid) {
            byAccountAddress.fail(pairKey, now);
            byAddress.fail(addressKey, now);
            await record(false, WRONG, user?.id);
            return page(c, 401, { redirect, username, error: WRONG });
        }
        byAccountAddress.reset(pairKey);
        // Told only to whoever knows the password: a stranger learns nothing about the account.
        if (!user.enabled) {
            await record(false, DISABLED, user.id);
            return page(c, 401, { redirect, username, error: DISABLED });
        }
        await record(true, SIGNED_IN, user.id);
        const token = await createSession(services.db, user.id, services.now(), {
            address: addressKey,
            userAgent: c.req.header('user-agent'),
        });
        c.header('Set-Cookie', sessionCookie(token, isHttps(c)));
        c.header('Cache-Control', 'no-store');
        return c.redirect(redirect, 302);
    });

    return app;
}
