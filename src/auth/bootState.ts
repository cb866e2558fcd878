/**
 * The session state the server writes into index.html for the page it answers (server/sso/shellState.ts): whether
 * the visitor is signed in and, if so, getUserInfo's data. The console would otherwise ask GET /sso/session and then
 * GET /api/sso/getUserInfo, one after the other, before its first screen. Each part is taken once, for that first
 * screen; later checks ask the server as before.
 */
export interface BootState {
    signedIn: boolean;
    loginUrl?: string;
    user?: unknown;
}

function read(): BootState | undefined {
    try {
        const text = globalThis.document?.getElementById('boot-state')?.textContent;
        const state = text ? (JSON.parse(text) as BootState) : undefined;
        return typeof state?.signedIn === 'boolean' ? state : undefined;
    } catch {
        return undefined;
    }
}

/** The page's state, read once; `session()` and `user()` each answer once, then undefined. */
export function createBootState(state: BootState | undefined = read()) {
    let session = state;
    let user = state?.signedIn ? state.user : undefined;
    return {
        session(): BootState | undefined {
            const s = session;
            session = undefined;
            return s;
        },
        user(): unknown {
            const u = user;
            user = undefined;
            return u;
        },
    };
}
