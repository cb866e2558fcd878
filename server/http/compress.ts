import { promisify } from 'node:util';
import { gzip as gzipCallback, gzipSync } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';
import { parseAccept } from 'hono/utils/accept';
import { jsonText, jsonTextOf } from './envelope';

/** Smaller answers go as they are: gzip's work and framing cost more than the bytes it saves (Hono's threshold). */
export const COMPRESS_THRESHOLD = 1024;
/** Larger answers are compressed as a stream or on libuv's pool, not at once on this thread (about 1 ms per 100 KB). */
export const GZIP_AT_ONCE_MAX = 128 * 1024;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const after = () => Promise.resolve();
const gzipOnPool = promisify(gzipCallback);
/**
 * Answers gzipped at once (device pages, details, lists: a few KB) at level 1: a device page of 4 KB took 90 µs at the
 * default level 6 and 76 µs at 1, one of 35 KB 285 µs and 173 µs, for 6-9% more bytes. Larger answers (the map's
 * points, compressed once and kept) keep the default level.
 */
const AT_ONCE = { level: 1 };

/** Whether the client takes gzip (Accept-Encoding with its q-values: `gzip;q=0` refuses it, `*` stands for it). */
export function acceptsGzip(header: string | undefined): boolean {
    if (!header) return false;
    const codings = parseAccept(header);
    const named = codings.find((a) => a.type.toLowerCase() === 'gzip') ?? codings.find((a) => a.type === '*');
    return !!named && named.q > 0;
}

/** gzip of a text: at once up to GZIP_AT_ONCE_MAX bytes, larger ones on libuv's thread pool, off the event loop. */
export function gzipText(text: string): Promise<Buffer> {
    return text.length <= GZIP_AT_ONCE_MAX ? Promise.resolve(gzipSync(text, AT_ONCE)) : gzipOnPool(text);
}

/**
 * A JSON answer kept as text and, once a client accepting gzip asks, as gzipped bytes too: 11 MB of map points take
 * a quarter of a second to compress, so that happens once per answer, not once per request (the device map, the
 * answer cache). Those under COMPRESS_THRESHOLD bytes are never compressed.
 */
export class CompressedAnswer {
    private gz?: Promise<Buffer>;
    /** Whether the answer is large enough to be sent gzipped. */
    readonly worthCompressing: boolean;

    constructor(readonly text: string) {
        this.worthCompressing = Buffer.byteLength(text) >= COMPRESS_THRESHOLD;
    }

    gzipped(): Promise<Buffer> {
        this.gz ??= gzipText(this.text);
        return this.gz;
    }
}

/** A kept answer as is, or its kept gzipped bytes when the client takes gzip and it is worth it. */
export async function jsonAnswer(c: Context, answer: CompressedAnswer, type = 'application/json; charset=UTF-8') {
    const headers: Record<string, string> = { 'content-type': type, vary: 'Accept-Encoding' };
    if (!answer.worthCompressing || !acceptsGzip(c.req.header('accept-encoding')))
        return jsonText(c, answer.text, 200, headers);
    // compressAnswers() leaves answers that carry a Content-Encoding alone.
    return c.body(new Uint8Array(await answer.gzipped()), 200, { ...headers, 'content-encoding': 'gzip' });
}

/**
 * JSON and CSV answers gzipped for clients that accept it. The envelope's answers (server/http/envelope.ts json(),
 * whose text is known) are the most: under COMPRESS_THRESHOLD bytes they go as they are, larger ones are gzipped at
 * once from their text, which costs a small fraction of a web stream through CompressionStream. Everything else
 * (streams, files, exports, clients that take deflate and not gzip) goes through Hono's compress middleware.
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
        if (size > GZIP_AT_ONCE_MAX || !acceptsGzip(c.req.header('accept-encoding'))) return streaming(c, after);
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
        c.res = new Response(new Uint8Array(gzipSync(text, AT_ONCE)), { status: res.status, headers: out });
    };
}
