import { and, asc, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { users } from '../db/schema';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';

/** The user search answers at most this many. */
export const USER_SEARCH_LIMIT = 20;

/** /api/user: user search for project staff. */
export function userRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    // phoneNumber: a literal substring of the mobile number; empty lists the first users.
    app.get('/listAll', async (c) => {
        const phone = c.req.query('phoneNumber')?.trim() ?? '';
        if (phone.length > 20) throw badRequest('手机号不得超过20个字符');
        const list = await db
            .select({ userId: users.id, username: users.displayName, loginName: users.username, mobile: users.mobile })
            .from(users)
            // A disabled user cannot sign in, so is no candidate for a project's staff.
            .where(and(eq(users.enabled, true), phone ? sql`strpos(${users.mobile}, ${phone}) > 0` : undefined))
            .orderBy(asc(users.id))
            .limit(USER_SEARCH_LIMIT);
        return ok(c, { list });
    });

    return app;
}
