import type { MiddlewareHandler } from 'hono';
import { forbiddenMessage } from '../../schemas/rights';
import type { Db } from '../db/client';
import type { AppEnv } from '../deps';
import { fail } from '../http/envelope';
import { hasRight } from './check';
import { referenceOutOfScope } from './references';
import { runInScope, scopeOf } from './scope';
import type { RightTable } from './table';

/**
 * After the session: refuses a call the user's role has no right to (403, in the family's envelope, with a Chinese
 * message naming the right), then runs the rest of the request inside the user's project scope; with `db`, a call
 * whose query names a record outside that scope is answered 404 (references.ts).
 */
export function requireRights(table: RightTable, db?: Db): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
        const user = c.get('user');
        const right = table.rightFor(c.req.method, c.req.path);
        if (right && !hasRight(user, right)) return fail(c, 403, forbiddenMessage(right));
        return runInScope(scopeOf(user), async () => {
            const outside = db ? await referenceOutOfScope(db, new URL(c.req.url).searchParams) : undefined;
            if (outside) return fail(c, 404, outside);
            await next();
        });
    };
}
