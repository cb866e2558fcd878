import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { fail } from './envelope';
import { badRequest } from './errors';

/**
 * Shared guards every path passes before its router: one place for what no route should have to think about.
 */

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The console's own origin as the browser sees it (a TLS proxy in front says so with X-Forwarded-*). */
export function ownOrigin(c: Context): string {
    const url = new URL(c.req.url);
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0].trim() || url.protocol.replace(':', '');
    const host = c.req.header('x-forwarded-host')?.split(',')[0].trim() || c.req.header('host') || url.host;
    return `${proto}://${host}`.toLowerCase();
}

function originOf(value: string | undefined): string | undefined {
    if (!value) return undefined;
    if (value === 'null') return 'null';
    try {
        return new URL(value).origin.toLowerCase();
    } catch {
        return 'null';
    }
}

export const FOREIGN_ORIGIN = '拒绝跨站请求：请在本平台的控制台页面中操作';

/**
 * A state-changing request carrying the session cookie from another origin (a form on any page the operator visits,
 * another port of this host included) is refused. Without Origin and Referer (curl, devices, servers) it passes:
 * browsers send Origin on every cross-origin write.
 */
export const refuseForeignWrites: MiddlewareHandler = async (c, next) => {
    if (!WRITES.has(c.req.method)) return next();
    const from = originOf(c.req.header('origin')) ?? originOf(c.req.header('referer'));
    if (from !== undefined && from !== ownOrigin(c)) {
        return fail(c, 403, FOREIGN_ORIGIN);
    }
    return next();
};

/**
 * Whether a read comes from another site's page: a media element or fetch there would carry the session cookie
 * (SameSite=Lax lets top-level and same-site loads through). Browsers say where a request comes from in
 * Sec-Fetch-Site (a same-origin fetch sends no Origin); an Origin, when sent, must be ours. Without either header
 * (curl, tests) it passes, as for writes.
 */
export function isForeignRead(c: Context): boolean {
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
    const from = originOf(c.req.header('origin'));
    return from !== undefined && from !== ownOrigin(c);
}

/**
 * Hono's bodyLimit, without building the request's web stream where the size is known already: a GET or HEAD (no
 * body), a request over HTTP/1.1 without Content-Length or Transfer-Encoding (no body: most DELETEs), or one whose
 * Content-Length states its size. Only a chunked body is counted as it comes (Hono's bodyLimit).
 */
export function limitBody(options: {
    maxSize: number;
    onError: (c: Context) => Response | Promise<Response>;
}): MiddlewareHandler {
    // The refusal comes before the client has sent the rest of its body, and Node closes the connection after it: the
    // answer says so, or a keep-alive client sends its next request on that connection and loses it (UND_ERR_SOCKET).
    const onError = (c: Context) => {
        c.header('Connection', 'close');
        return options.onError(c);
    };
    const counted = bodyLimit({ maxSize: options.maxSize, onError });
    return async (c, next) => {
        if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
        if (c.req.header('transfer-encoding') !== undefined) return counted(c, next);
        const length = c.req.header('content-length');
        if (length !== undefined) return parseInt(length || '0', 10) > options.maxSize ? onError(c) : next();
        // Over HTTP/1.1 a body needs one of the two headers; a request made in process (tests) may have one without.
        const incoming = (c.env as { incoming?: { httpVersionMajor?: number } } | undefined)?.incoming;
        return incoming?.httpVersionMajor === 1 ? next() : counted(c, next);
    };
}

/** NUL in a query value never reaches the database (PostgreSQL refuses it in text). */
export const refuseNulInQuery: MiddlewareHandler = async (c, next) => {
    const url = c.req.url;
    const q = url.indexOf('?');
    if (q >= 0 && /%00/i.test(url.slice(q))) {
        const name = [...new URLSearchParams(url.slice(q + 1))].find(([, v]) => v.includes('\u0000'))?.[0] ?? '';
        throw badRequest(`参数 ${name} 含有非法字符（空字符），请删除后重试`);
    }
    return next();
};

/** The console's pages may not be framed by another site; scripts and styles come from this origin only. */
export const CONSOLE_CSP = [
    "default-src 'self'",
    "script-src 'self'",
    // MUI and emotion inject style elements at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // The live video widget plays HLS through Media Source Extensions: the video element's source is a blob: URL.
    "media-src 'self' blob:",
    "connect-src 'self' ws: wss:",
    // maplibre runs its workers from blob: URLs.
    "worker-src 'self' blob:",
    "child-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
].join('; ');

/** nosniff on every answer; the console's HTML gets its CSP and may not be framed. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    const type = c.res.headers.get('content-type') ?? '';
    if (type.includes('text/html')) {
        if (!c.res.headers.has('Content-Security-Policy')) c.res.headers.set('Content-Security-Policy', CONSOLE_CSP);
        c.res.headers.set('X-Frame-Options', 'DENY');
    }
};

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22: a number out of range, text it cannot represent) are the
 * client's bad input that slipped past validation: a 400, not a fault.
 */
export function isDataException(err: unknown): boolean {
    let e: unknown = err;
    for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('22')) return true;
        e = (e as { cause?: unknown }).cause;
    }
    return false;
}
