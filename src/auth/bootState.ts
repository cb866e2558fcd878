/**
 * The session state the server writes into index.html for the page it answers (server/sso/shellState.ts): whether
 * the visitor is signed in and, if so, getUserInfo's data. The console would otherwise ask GET /sso/session and then
 * GET /api/sso/getUserInfo, one after the other, before its first screen. A signed-in page counts as a fresh session
 * check (the same minute as a good /sso/session answer); a signed-out page stays signed out until the browser loads
 * another (signing in is the server's page); the user's data is taken once.
 */
export interface BootState {
    signedIn: boolean;
    loginUrl?: string;
    user?: unknown;
}

/** index.html's state, or undefined (a page without it: tests, the development server). */
export function readBootState(): BootState | undefined {
    try {
        const text = globalThis.document?.getElementById('boot-state')?.textContent;
        const state = text ? (JSON.parse(text) as BootState) : undefined;
        return typeof state?.signedIn === 'boolean' ? state : undefined;
    } catch {
        return undefined;
    }
}

/** The user's data from the page, answered once (then undefined: getUserInfo as before). */
export function bootUser(state: BootState | undefined): () => unknown {
    let user = state?.signedIn ? state.user : undefined;
    return () => {
        const u = user;
        user = undefined;
        return u;
    };
}
