import type { Context } from 'hono';
import type { Services } from '../deps';
import { loginUrl, safeRedirect, tokenOf } from './auth';
import { findSessionUser } from './sessions';

/**
 * GET /sso/session: whether the caller is signed in, answered 200 either way. The console asks it before anything
 * else, so a visitor without a session goes to the sign-on page without a failed request in the browser's console;
 * the operations themselves still answer 401 without a session. `redirect` (a path on this site) is where the
 * sign-on page sends the visitor back to.
 */
export function sessionProbe(services: Services) {
    return async (c: Context) => {
        const token = tokenOf(c);
        const user = token ? await findSessionUser(services.db, token, services.now()) : undefined;
        c.header('Cache-Control', 'no-store');
        return c.json({
            code: 200,
            msg: 'success',
            data: user
                ? { signedIn: true }
                : { signedIn: false, loginUrl: loginUrl(safeRedirect(c.req.query('redirect') ?? '/')) },
        });
    };
}
