import type { MiddlewareHandler } from 'hono';
import { forbiddenMessage } from '../../schemas/rights';
import type { AppEnv } from '../deps';
import { fail } from '../http/envelope';
import { hasRight } from './check';
import { runInScope, scopeOf } from './scope';
import type { RightTable } from './table';

/**
 * After the session: refuses a call the user's role has no right to (403, in the family's envelope, with a Chinese
 * message naming the right), then runs the rest of the request inside the user's project scope.
 */
export function requireRights(table: RightTable): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
        const user = c.get('user');
        const right = table.rightFor(c.req.method, c.req.path);
        if (right && !hasRight(user, right)) return fail(c, 403, forbiddenMessage(right));
        await runInScope(scopeOf(user), next);
    };
}
