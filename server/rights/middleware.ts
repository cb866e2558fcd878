import type { Context, MiddlewareHandler } from 'hono';
import { forbiddenMessage } from '../../schemas/rights';
import type { Db } from '../db/client';
import type { AppEnv } from '../deps';
import { fail } from '../http/envelope';
import { OWN_LIMIT_PATHS } from '../http/input';
import { hasRight } from './check';
import { bodyReferenceOutOfScope, referenceOutOfScope, type ReferenceKind } from './references';
import { currentScope, runInScope, scopeOf } from './scope';
import type { RightTable } from './table';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A write's body as the route will read it (Hono caches the parsed body, so the route reads it again unchanged);
 * undefined when it is of no known type or does not parse (the route answers its own 400). The uploads that set
 * their own body limit are read by their routes, after that limit, which check their references themselves.
 */
async function bodyOf(c: Context): Promise<unknown> {
    if (!WRITES.has(c.req.method) || OWN_LIMIT_PATHS.has(c.req.path)) return undefined;
    const type = c.req.header('content-type') ?? '';
    try {
        if (type.includes('application/json')) return await c.req.json();
        if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data'))
            return await c.req.parseBody({ all: true });
    } catch {
        return undefined;
    }
    return undefined;
}

async function outsideScope(c: Context, db: Db, own: Record<string, ReferenceKind> | undefined) {
    if (!currentScope()) return undefined;
    return (
        (await referenceOutOfScope(db, new URL(c.req.url).searchParams, own)) ??
        (await bodyReferenceOutOfScope(db, await bodyOf(c), own))
    );
}

/**
 * After the session: refuses a call the user's role has no right to (403, in the family's envelope, with a Chinese
 * message naming the right), then runs the rest of the request inside the user's project scope; with `db`, a call
 * whose query or body names a record outside that scope is answered 404 (references.ts).
 */
export function requireRights(table: RightTable, db?: Db): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
        const user = c.get('user');
        const right = table.rightFor(c.req.method, c.req.path);
        if (right && !hasRight(user, right)) return fail(c, 403, forbiddenMessage(right));
        return runInScope(scopeOf(user), async () => {
            const outside = db ? await outsideScope(c, db, table.referencesFor(c.req.method, c.req.path)) : undefined;
            if (outside) return fail(c, 404, outside);
            await next();
        });
    };
}
