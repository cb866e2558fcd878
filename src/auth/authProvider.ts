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

function consolePrefix(prefix?: string): string {
    return (prefix ?? (import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '').replace(/\/$/, '');
}

/** Whether the browser holds a session the server accepts (GET /sso/session), for /login. */
export async function hasSession(options: Pick<AuthProviderOptions, 'prefix' | 'fetch' | 'timeout'> = {}) {
    const prefix = consolePrefix(options.prefix);
    try {
        const answer = await send(`${prefix}/sso/session`, { method: 'GET' }, options);
        return readPath(parseEnvelope(answer, 'code200'), 'data.signedIn') === true;
    } catch {
        return false;
    }
}

type Probe = { state: 'in' | 'out' | 'unknown'; loginUrl?: string };

/** What the auth provider knows between calls. */
export interface AuthState {
    prefix: string;
    http: HttpOptions;
    redirect: (url: string) => void;
    defaultLogin: string;
    /** The user the page came with, given once (bootState.ts). */
    userFromPage: () => unknown;
    /** The page came signed out (its sign-on page): no call asks again until another page loads. */
    signedOutPage: string | undefined;
    identity?: Promise<UserIdentity>;
    /**
     * When the server last said the session is good (react-admin checks on every page change); a page that came
     * signed in counts as such an answer.
     */
    confirmedAt: number;
    /**
     * The sign-on page a failed checkAuth named. react-admin follows a failed checkAuth with logout(), whose answer
     * decides where the browser goes: with no session there is nothing to end on the server, so logout answers this.
     */
    signedOutTo?: string;
    /** The probe under way: checkAuth and getPermissions, asked together by react-admin, share it. */
    probing?: Promise<Probe>;
}

export function createAuthState(options: AuthProviderOptions = {}): AuthState {
    const prefix = consolePrefix(options.prefix);
    const boot = options.boot ?? readBootState();
    return {
        prefix,
        http: { timeout: options.timeout, fetch: options.fetch },
        redirect: options.redirect ?? ((url: string) => globalThis.location.assign(url)),
        defaultLogin: `${prefix}/sso/login`,
        userFromPage: bootUser(boot),
        signedOutPage: boot && !boot.signedIn ? (boot.loginUrl ?? '') : undefined,
        confirmedAt: boot?.signedIn ? Date.now() : -Infinity,
    };
}

const confirmed = (state: AuthState) => Date.now() - state.confirmedAt < SESSION_CONFIRMED_MS;

/** The user is no longer known: the next identity is asked again and the kept user keys are removed. */
function forgetUser(state: AuthState) {
    state.identity = undefined;
    clearUser();
}

/**
 * GET /sso/session, answered 200 with or without a session: 'unknown' when it cannot be asked (a server
 * without it, the network), and the console then relies on the first 401.
 */
export async function probeSession(state: AuthState): Promise<Probe> {
    if (state.signedOutPage !== undefined) return { state: 'out', loginUrl: state.signedOutPage };
    try {
        const answer = await send(
            `${state.prefix}/sso/session?redirect=${encodeURIComponent(currentPage())}`,
            { method: 'GET' },
            state.http,
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

function probeOnce(state: AuthState): Promise<Probe> {
    return (state.probing ??= probeSession(state).finally(() => {
        state.probing = undefined;
    }));
}

async function getEnvelope(state: AuthState, path: string) {
    const answer = await send(`${state.prefix}${path}`, { method: 'GET' }, state.http);
    return parseEnvelope(answer, 'code200');
}

/** react-admin's identity from the platform's user info, the user keys kept in local storage beside it. */
export function identityOf(data: UserInfoData): UserIdentity {
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

/** The user the page came with, else GET /api/sso/getUserInfo; asked once, again after a failure. */
function getIdentity(state: AuthState): Promise<UserIdentity> {
    state.identity ??= (async () => {
        const data = state.userFromPage() ?? readPath(await getEnvelope(state, '/api/sso/getUserInfo'), 'data');
        return identityOf((data ?? {}) as UserInfoData);
    })().catch((error) => {
        state.identity = undefined;
        throw error;
    });
    return state.identity;
}

async function logout(state: AuthState): Promise<string> {
    state.confirmedAt = -Infinity;
    forgetUser(state);
    // Kept, not consumed: StrictMode and route changes can run checkAuth and logout more than once.
    if (state.signedOutTo) return state.signedOutTo;
    try {
        const body = await getEnvelope(state, '/api/sso/logout');
        const loginUrl = readPath(body, 'data.loginUrl');
        return absoluteUrl(typeof loginUrl === 'string' && loginUrl ? loginUrl : state.defaultLogin);
    } catch {
        // An expired session cannot be ended twice; the sign-on page is still where the user goes.
        return absoluteUrl(state.defaultLogin);
    }
}

/**
 * Asked before the layout and its calls: a visitor without a session leaves for the sign-on page without a
 * failed request. A good answer holds for a minute; a later 401 still goes through checkError.
 */
async function checkAuth(state: AuthState): Promise<void> {
    if (confirmed(state)) return;
    const { state: session, loginUrl } = await probeOnce(state);
    if (session === 'in') {
        state.confirmedAt = Date.now();
        state.signedOutTo = undefined;
    }
    if (session !== 'out') return;
    forgetUser(state);
    state.signedOutTo = absoluteUrl(loginUrl || state.defaultLogin, currentPage());
    throw { redirectTo: state.signedOutTo, message: false, logoutUser: false };
}

/** A 401 sends the browser to the sign-on page it names; 403 is a refused right (shown, the session stays). */
async function checkError(state: AuthState, error: { status?: number; body?: unknown } | undefined): Promise<void> {
    if (error?.status !== 401) return;
    state.confirmedAt = -Infinity;
    forgetUser(state);
    const loginUrl = readPath(error?.body, 'data.loginUrl');
    throw {
        redirectTo: absoluteUrl(
            typeof loginUrl === 'string' && loginUrl ? loginUrl : state.defaultLogin,
            currentPage(),
        ),
        message: false,
        // Leaving the page is enough: react-admin's logout would call /api/sso/logout on a dead session.
        logoutUser: false,
    };
}

/**
 * The user's rights (`family.action`), or undefined when the server names none (engine/rights.ts) or the user
 * cannot be read: rights only shape the console (the server enforces them), and react-admin waits for them
 * before it mounts the routes, so a failure here must not hold the screens; an expired session is then told
 * by the screen's own calls (checkError).
 */
async function getPermissions(state: AuthState): Promise<string[] | undefined> {
    // A visitor without a session has no rights to read (and must see no failed request before sign-in).
    if (!confirmed(state)) {
        const { state: session } = await probeOnce(state);
        if (session === 'out') return undefined;
    }
    try {
        const user = await getIdentity(state);
        return (user as { rights?: string[] }).rights;
    } catch {
        return undefined;
    }
}

/**
 * Single sign-on: the console has no login form. The server enforces the session; the first answer with 401
 * carries the login URL, and checkError sends the browser there with `redirect` set to the current page.
 */
export function createAuthProvider(options: AuthProviderOptions = {}): AuthProvider {
    const state = createAuthState(options);
    return {
        async login() {
            state.redirect(absoluteUrl(`${state.prefix}/sso/login?redirect=/`));
            // The page is being replaced; settling would let react-admin navigate inside the old page meanwhile.
            return new Promise<never>(() => undefined);
        },
        logout: () => logout(state),
        checkAuth: () => checkAuth(state),
        checkError: (error) => checkError(state, error),
        getIdentity: () => getIdentity(state),
        getPermissions: () => getPermissions(state),
    };
}
