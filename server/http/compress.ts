import { gzipSync } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';
import { jsonTextOf } from './envelope';

/** Smaller answers go as they are: gzip's work and framing cost more than the bytes it saves (Hono's threshold). */
export const COMPRESS_THRESHOLD = 1024;
/** Larger answers are compressed as a stream or on libuv's pool, not at once on this thread (about 1 ms per 100 KB). */
export const GZIP_AT_ONCE_MAX = 128 * 1024;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const after = () => Promise.resolve();

/**
 * JSON and CSV answers gzipped for clients that accept it. The envelope's answers (server/http/envelope.ts json(),
 * whose text is known) are the most: under COMPRESS_THRESHOLD bytes they go as they are, larger ones are gzipped at
 * once from their text, which costs a small fraction of a web stream through CompressionStream. Everything else
 * (streams, files, exports, answers with q-valued or unusual Accept-Encoding) goes through Hono's compress middleware.
 */
export function compressAnswers(): MiddlewareHandler {
    const streaming = compress({ threshold: COMPRESS_THRESHOLD });
    return async (c, next) => {
        await next();
        const res = c.res;
        const text = jsonTextOf(res);
        if (text === undefined || c.req.method === 'HEAD' || res.status === 206) return streaming(c, after);
        const size = Buffer.byteLength(text);
        if (size < COMPRESS_THRESHOLD) return;
        const accepted = c.req.header('accept-encoding') ?? '';
        if (size > GZIP_AT_ONCE_MAX || !/\bgzip\b/i.test(accepted) || accepted.includes(';'))
            return streaming(c, after);
        const headers = res.headers;
        if (headers.has('content-encoding') || NO_TRANSFORM.test(headers.get('cache-control') ?? ''))
            return streaming(c, after);
        const out = new Headers(headers);
        out.set('Content-Encoding', 'gzip');
        out.delete('Content-Length');
        const vary = out.get('Vary');
        if (!vary) out.set('Vary', 'Accept-Encoding');
        else if (vary !== '*' && !/\baccept-encoding\b/i.test(vary)) out.set('Vary', `${vary}, Accept-Encoding`);
        // Set in two steps: Hono would otherwise merge the old answer's headers into a copy of the new one.
        c.res = undefined;
        c.res = new Response(new Uint8Array(gzipSync(text)), { status: res.status, headers: out });
    };
}
