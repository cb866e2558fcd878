import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Each API family answers in its own envelope (docs/platform-api.md): general paths with a numeric code
 * (200 on success, the HTTP status otherwise), ms3 paths with the string codes '000000' / '999999'.
 */
export type Family = 'general' | 'ms3';

export function familyOf(path: string): Family {
    return path.startsWith('/ms3/') ? 'ms3' : 'general';
}

export function ok<T>(c: Context, data: T) {
    const code = familyOf(c.req.path) === 'ms3' ? '000000' : 200;
    return c.json({ code, msg: 'success', data });
}

export function fail(c: Context, status: ContentfulStatusCode, msg: string) {
    const code = familyOf(c.req.path) === 'ms3' ? '999999' : status;
    return c.json({ code, msg }, status);
}
