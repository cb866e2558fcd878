import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { clearCookie, isHttps, loginUrl } from '../sso/auth';
import { deleteSession } from '../sso/sessions';
import type { SessionUser } from '../sso/sessions';
import { userRights } from './people';

/** GET /api/sso/getUserInfo's data (also carried by the console's page for its first screen: server/sso/shellState.ts). */
export function userInfo(user: SessionUser) {
    return {
        userInfo: { userId: user.id, userName: user.displayName, loginName: user.username },
        mobilePhone: user.mobile ?? '',
        code: user.userCode,
        // What the console hides buttons by (docs/roles.md); the server checks every call anyway.
        role: { id: user.roleId, name: user.roleName, admin: user.admin },
        rights: userRights(user),
        projectIds: user.admin ? null : user.projectIds,
    };
}

/** /api/sso: who is signed in, and signing out. */
export function ssoRoutes(services: Services) {
    const app = new Hono<AppEnv>();

    app.get('/getUserInfo', (c) => ok(c, userInfo(c.get('user'))));

    app.get('/logout', async (c) => {
        await deleteSession(services.db, c.get('token'));
        c.header('Set-Cookie', clearCookie(isHttps(c)));
        return ok(c, { loginUrl: loginUrl('/') });
    });

    return app;
}
