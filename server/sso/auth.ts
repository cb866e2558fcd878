import { getCookie } from 'hono/cookie';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, Services } from '../deps';
import { findSessionUser, SESSION_SECONDS } from './sessions';

export const COOKIE_NAME = 'Authorization';

/** Path prefixes that need a session. */
export const PROTECTED_PREFIXES = ['/api', '/ms2', '/ms3', '/ms4', '/ms6', '/ms7', '/f'];

export function isProtectedPath(path: string): boolean {
    return PROTECTED_PREFIXES.some((p) => path === p || path.startsWith(p + '/'));
}

/** The session token from the Authorization cookie, or the Authorization header (raw or 'Bearer x'). */
export function tokenOf(c: Context): string | undefined {
    const cookie = getCookie(c, COOKIE_NAME);
    if (cookie) return cookie;
    const header = c.req.header('authorization')?.trim();
    if (!header) return undefined;
    const bearer = /^bearer\s+(.+)$/i.exec(header);
    return (bearer ? bearer[1] : header).trim() || undefined;
}

/** Only a path on this origin (one leading '/', not '//' or '/\'), else '/'. */
export function safeRedirect(raw: unknown): string {
    if (typeof raw !== 'string' || !/^\/(?![/\\])/.test(raw) || raw.includes('\\')) return '/';
    // Control characters (a tab or newline inside '//' is still '//' to a browser).
    if ([...raw].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return '/';
    try {
        const base = 'http://same.origin';
        const url = new URL(raw, base);
        return url.origin === base ? url.pathname + url.search + url.hash : '/';
    } catch {
        return '/';
    }
}

export function loginUrl(redirect: string): string {
    return '/sso/login?redirect=' + encodeURIComponent(redirect);
}

/** Where to come back after signing in: the page that made the call (Referer), when it is on this origin. */
export function refererPath(c: Context): string {
    const referer = c.req.header('referer');
    if (!referer) return '/';
    try {
        const from = new URL(referer);
        const self = new URL(c.req.url);
        return from.origin === self.origin ? safeRedirect(from.pathname + from.search + from.hash) : '/';
    } catch {
        return '/';
    }
}

/**
 * True when the browser reached us over HTTPS: directly, or through a TLS-terminating proxy that says so. The
 * cookie then carries Secure, so it never travels over plain HTTP. Trusting the header is safe here: a forged
 * one can only make the cookie stricter.
 */
export function isHttps(c: Context): boolean {
    const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
    return forwarded === 'https' || new URL(c.req.url).protocol === 'https:';
}

const attributes = (secure: boolean) => `HttpOnly; SameSite=Lax; Path=/${secure ? '; Secure' : ''}`;

export function sessionCookie(token: string, secure = false): string {
    return `${COOKIE_NAME}=${token}; ${attributes(secure)}; Max-Age=${SESSION_SECONDS}`;
}

export function clearCookie(secure = false): string {
    return `${COOKIE_NAME}=; ${attributes(secure)}; Max-Age=0`;
}

export function unauthorized(c: Context) {
    return c.json({ code: 401, msg: '登录已过期，请重新登录', data: { loginUrl: loginUrl(refererPath(c)) } }, 401);
}

export function requireSession(services: Services): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
        const token = tokenOf(c);
        const user = token ? await findSessionUser(services.db, token, services.now()) : undefined;
        if (!token || !user) return unauthorized(c);
        c.set('user', user);
        c.set('token', token);
        await next();
    };
}
