import type { Context } from 'hono';
import type { Services } from '../deps';
import { userInfo } from '../routes/sso';
import { loginUrl, safeRedirect, tokenOf } from './auth';
import { findSessionUser } from './sessions';

export type ShellState = { signedIn: true; user: ReturnType<typeof userInfo> } | { signedIn: false; loginUrl: string };

/**
 * What the console's page (index.html) carries for its first screen: whether the visitor is signed in (GET
 * /sso/session's answer) and, if so, who (GET /api/sso/getUserInfo's). The console asked the two one after the
 * other before it rendered anything (0.3-0.5 s of a cold load here); it reads this once instead
 * (src/auth/bootState.ts) and asks the server as before from then on.
 */
export function shellState(services: Services) {
    return async (c: Context): Promise<ShellState> => {
        const token = tokenOf(c);
        const user = token ? await findSessionUser(services.db, token, services.now()) : undefined;
        if (user) return { signedIn: true, user: userInfo(user) };
        const url = new URL(c.req.url);
        return { signedIn: false, loginUrl: loginUrl(safeRedirect(`${url.pathname}${url.search}`)) };
    };
}

/**
 * The state as a JSON block for the page's head. Names are data, never markup: `<` is escaped, so no value can end
 * the script element; U+2028/2029 too, for a reader that evaluates it.
 */
export function shellStateScript(state: ShellState): string {
    const json = JSON.stringify(state)
        .replace(/</g, '\\u003c')
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029');
    return `<script type="application/json" id="boot-state">${json}</script>`;
}
