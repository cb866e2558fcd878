import type { AuthProvider, UserIdentity } from 'ra-core';
import { send, type HttpOptions } from '../../dataProvider/http';
import { parseEnvelope, readPath } from '../../dataProvider/envelope';

/** Keys SPEC.md keeps the signed-in user under; some platform calls send the userId. */
export const USER_KEYS = ['userId', 'userName', 'mobilePhone'] as const;

export interface AuthProviderOptions {
    /** Console prefix (default VITE_API_PREFIX, else ''). */
    prefix?: string;
    timeout?: number;
    fetch?: typeof fetch;
    /** Full-page navigation to the sign-on service (default window.location.assign). */
    redirect?: (url: string) => void;
}

interface UserInfoData {
    userInfo?: { userId?: string | number; userName?: string; loginName?: string };
    mobilePhone?: string;
    code?: string;
}

const storage = (): Storage | undefined => {
    try {
        return globalThis.localStorage;
    } catch {
        return undefined;
    }
};

function clearUser() {
    for (const key of USER_KEYS) storage()?.removeItem(key);
}

/**
 * An absolute URL, so react-admin leaves the single-page app for it (NOTES.md): the sign-on page is the server's,
 * not a console route. With `back`, its `redirect` param is replaced by the page to come back to.
 */
export function absoluteUrl(url: string, back?: string): string {
    const resolved = new URL(url, globalThis.location?.origin ?? 'http://localhost');
    if (back !== undefined) resolved.searchParams.set('redirect', back);
    return resolved.href;
}

/** Where the user is now (hash included: react-admin routes in the hash by default). */
function currentPage(): string {
    const loc = globalThis.location;
    return loc ? `${loc.pathname}${loc.search}${loc.hash}` : '/';
}

/**
 * Single sign-on: the console has no login form. The server enforces the session; the first answer with 401
 * carries the login URL, and checkError sends the browser there with `redirect` set to the current page.
 */
export function createAuthProvider(options: AuthProviderOptions = {}): AuthProvider {
    const prefix = (options.prefix ?? (import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '').replace(
        /\/$/,
        '',
    );
    const http: HttpOptions = { timeout: options.timeout, fetch: options.fetch };
    const redirect = options.redirect ?? ((url: string) => globalThis.location.assign(url));
    const defaultLogin = `${prefix}/sso/login`;
    let identity: Promise<UserIdentity> | undefined;

    const get = async (path: string) => {
        const answer = await send(`${prefix}${path}`, { method: 'GET' }, http);
        return parseEnvelope(answer, 'code200');
    };

    async function fetchIdentity(): Promise<UserIdentity> {
        const body = await get('/api/sso/getUserInfo');
        const data = (readPath(body, 'data') ?? {}) as UserInfoData;
        const userId = data.userInfo?.userId ?? '';
        const userName = data.userInfo?.userName ?? data.userInfo?.loginName ?? '';
        const values = { userId: String(userId), userName, mobilePhone: data.mobilePhone ?? '' };
        for (const key of USER_KEYS) storage()?.setItem(key, values[key]);
        return { id: userId, fullName: userName, mobilePhone: values.mobilePhone, code: data.code };
    }

    return {
        async login() {
            redirect(absoluteUrl(`${prefix}/sso/login?redirect=/`));
            // The page is being replaced; settling would let react-admin navigate inside the old page meanwhile.
            return new Promise<never>(() => undefined);
        },

        async logout() {
            identity = undefined;
            clearUser();
            try {
                const body = await get('/api/sso/logout');
                const loginUrl = readPath(body, 'data.loginUrl');
                return absoluteUrl(typeof loginUrl === 'string' && loginUrl ? loginUrl : defaultLogin);
            } catch {
                // An expired session cannot be ended twice; the sign-on page is still where the user goes.
                return absoluteUrl(defaultLogin);
            }
        },

        async checkAuth() {
            // The server enforces sessions; its first 401 goes through checkError to the sign-on page.
        },

        async checkError(error: { status?: number; body?: unknown } | undefined) {
            const status = error?.status;
            if (status !== 401 && status !== 403) return;
            identity = undefined;
            clearUser();
            const loginUrl = readPath(error?.body, 'data.loginUrl');
            throw {
                redirectTo: absoluteUrl(
                    typeof loginUrl === 'string' && loginUrl ? loginUrl : defaultLogin,
                    currentPage(),
                ),
                message: false,
                // Leaving the page is enough: react-admin's logout would call /api/sso/logout on a dead session.
                logoutUser: false,
            };
        },

        getIdentity() {
            identity ??= fetchIdentity().catch((error) => {
                identity = undefined;
                throw error;
            });
            return identity;
        },

        async getPermissions() {
            return undefined;
        },
    };
}

export const authProvider = createAuthProvider();
export default authProvider;
