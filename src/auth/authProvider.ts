import type { AuthProvider, UserIdentity } from 'ra-core';
import { send, type HttpOptions } from '../../dataProvider/http';
import { parseEnvelope, readPath } from '../../dataProvider/envelope';
import { bootUser, readBootState, type BootState } from './bootState';

/** Keys SPEC.md keeps the signed-in user under; some platform calls send the userId. */
export const USER_KEYS = ['userId', 'userName', 'mobilePhone'] as const;

export interface AuthProviderOptions {
    /** Console prefix (default VITE_API_PREFIX, else ''). */
    prefix?: string;
    timeout?: number;
    fetch?: typeof fetch;
    /** Full-page navigation to the sign-on service (default window.location.assign). */
    redirect?: (url: string) => void;
    /** The session state the page came with (default: index.html's, src/auth/bootState.ts). */
    boot?: BootState;
}

interface UserInfoData {
    userInfo?: { userId?: string | number; userName?: string; loginName?: string };
    mobilePhone?: string;
    code?: string;
    /** The rights of the user's role (docs/roles.md); absent from servers without roles. */
    rights?: string[];
    role?: { id: number; name: string; admin: boolean };
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

const SESSION_CONFIRMED_MS = 60_000;

/** Whether the browser holds a session the server accepts (GET /sso/session), for /login. */
export async function hasSession(options: Pick<AuthProviderOptions, 'prefix' | 'fetch' | 'timeout'> = {}) {
    const prefix = (options.prefix ?? (import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '').replace(
        /\/$/,
        '',
    );
    try {
        const answer = await send(`${prefix}/sso/session`, { method: 'GET' }, options);
        return readPath(parseEnvelope(answer, 'code200'), 'data.signedIn') === true;
    } catch {
        return false;
    }
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
    const boot = options.boot ?? readBootState();
    const userFromPage = bootUser(boot);
    /** The page came signed out (its sign-on page): no call asks again until another page loads. */
    const signedOutPage = boot && !boot.signedIn ? (boot.loginUrl ?? '') : undefined;
    let identity: Promise<UserIdentity> | undefined;
    /**
     * When the server last said the session is good (react-admin checks on every page change); a page that came
     * signed in counts as such an answer.
     */
    let confirmedAt = boot?.signedIn ? Date.now() : -Infinity;
    /**
     * The sign-on page a failed checkAuth named. react-admin follows a failed checkAuth with logout(), whose answer
     * decides where the browser goes: with no session there is nothing to end on the server, so logout answers this.
     */
    let signedOutTo: string | undefined;

    /**
     * GET /sso/session, answered 200 with or without a session: 'unknown' when it cannot be asked (a server
     * without it, the network), and the console then relies on the first 401 as before.
     */
    async function probe(): Promise<{ state: 'in' | 'out' | 'unknown'; loginUrl?: string }> {
        if (signedOutPage !== undefined) return { state: 'out', loginUrl: signedOutPage };
        try {
            const answer = await send(
                `${prefix}/sso/session?redirect=${encodeURIComponent(currentPage())}`,
                { method: 'GET' },
                http,
            );
            const body = parseEnvelope(answer, 'code200');
            const signedIn = readPath(body, 'data.signedIn');
            const loginUrl = readPath(body, 'data.loginUrl');
            if (signedIn === true) return { state: 'in' };
            if (signedIn === false) return { state: 'out', loginUrl: typeof loginUrl === 'string' ? loginUrl : '' };
        } catch {
            // Fall through.
        }
        return { state: 'unknown' };
    }

    /** One probe at a time: checkAuth and getPermissions, asked together by react-admin, share it. */
    let probing: ReturnType<typeof probe> | undefined;
    const probeOnce = () =>
        (probing ??= probe().finally(() => {
            probing = undefined;
        }));

    const get = async (path: string) => {
        const answer = await send(`${prefix}${path}`, { method: 'GET' }, http);
        return parseEnvelope(answer, 'code200');
    };

    async function fetchIdentity(): Promise<UserIdentity> {
        const data = (userFromPage() ?? readPath(await get('/api/sso/getUserInfo'), 'data') ?? {}) as UserInfoData;
        const userId = data.userInfo?.userId ?? '';
        const userName = data.userInfo?.userName ?? data.userInfo?.loginName ?? '';
        const values = { userId: String(userId), userName, mobilePhone: data.mobilePhone ?? '' };
        for (const key of USER_KEYS) storage()?.setItem(key, values[key]);
        return {
            id: userId,
            fullName: userName,
            mobilePhone: values.mobilePhone,
            code: data.code,
            loginName: data.userInfo?.loginName,
            rights: Array.isArray(data.rights) ? data.rights : undefined,
            role: data.role,
        };
    }

    function getIdentity(): Promise<UserIdentity> {
        identity ??= fetchIdentity().catch((error) => {
            identity = undefined;
            throw error;
        });
        return identity;
    }

    return {
        async login() {
            redirect(absoluteUrl(`${prefix}/sso/login?redirect=/`));
            // The page is being replaced; settling would let react-admin navigate inside the old page meanwhile.
            return new Promise<never>(() => undefined);
        },

        async logout() {
            confirmedAt = -Infinity;
            identity = undefined;
            clearUser();
            // Kept, not consumed: StrictMode and route changes can run checkAuth and logout more than once.
            if (signedOutTo) return signedOutTo;
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
            // Asked before the layout and its calls: a visitor without a session leaves for the sign-on page
            // without a failed request. A good answer holds for a minute; a later 401 still goes through checkError.
            if (Date.now() - confirmedAt < SESSION_CONFIRMED_MS) return;
            const { state, loginUrl } = await probeOnce();
            if (state === 'in') {
                confirmedAt = Date.now();
                signedOutTo = undefined;
            }
            if (state !== 'out') return;
            identity = undefined;
            clearUser();
            signedOutTo = absoluteUrl(loginUrl || defaultLogin, currentPage());
            throw { redirectTo: signedOutTo, message: false, logoutUser: false };
        },

        async checkError(error: { status?: number; body?: unknown } | undefined) {
            // 403 is a refused right (the role lacks it): the message is shown, the session stays.
            const status = error?.status;
            if (status !== 401) return;
            confirmedAt = -Infinity;
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

        getIdentity,

        /**
         * The user's rights (`family.action`), or undefined when the server names none (engine/rights.ts) or the user
         * cannot be read: rights only shape the console (the server enforces them), and react-admin waits for them
         * before it mounts the routes, so a failure here must not hold the screens; an expired session is then told
         * by the screen's own calls (checkError), as before rights existed.
         */
        async getPermissions() {
            // A visitor without a session has no rights to read (and must see no failed request before sign-in).
            if (Date.now() - confirmedAt >= SESSION_CONFIRMED_MS) {
                const { state } = await probeOnce();
                if (state === 'out') return undefined;
            }
            try {
                const user = await getIdentity();
                return (user as { rights?: string[] }).rights;
            } catch {
                return undefined;
            }
        },
    };
}

export const authProvider = createAuthProvider();
export default authProvider;
