import { HttpError } from 'ra-core';

export const DEFAULT_TIMEOUT = 60_000;
export const TIMEOUT_MESSAGE = '请求超时，请稍后重试';
export const NETWORK_MESSAGE = '网络异常，请检查网络连接后重试';

export type ArrayEncoding = 'repeat' | 'comma' | 'json';

export interface HttpOptions {
    /** Milliseconds before the request is abandoned with TIMEOUT_MESSAGE (default 60,000). */
    timeout?: number;
    fetch?: typeof fetch;
}

export interface RawAnswer {
    status: number;
    headers: Headers;
    text: string;
}

export interface SendInit {
    method: string;
    headers?: HeadersInit;
    body?: BodyInit | null;
    signal?: AbortSignal;
    /** Upload progress 0..1; switches the transport to XMLHttpRequest. */
    onProgress?: (fraction: number) => void;
}

function readCookie(name: string): string | undefined {
    if (typeof document === 'undefined' || !document.cookie) return undefined;
    for (const part of document.cookie.split(';')) {
        const eq = part.indexOf('=');
        if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
        const value = part.slice(eq + 1).trim();
        try {
            return decodeURIComponent(value);
        } catch {
            return value;
        }
    }
    return undefined;
}

/**
 * The session token: the readable `Authorization` cookie, else local storage. The reference server's cookie is
 * HttpOnly (invisible here) and travels by itself, so an absent value is normal.
 */
export function readAuthorization(): string | undefined {
    const fromCookie = readCookie('Authorization');
    if (fromCookie) return fromCookie;
    try {
        return globalThis.localStorage?.getItem('Authorization') ?? undefined;
    } catch {
        return undefined;
    }
}

export function withAuthorization(headers?: HeadersInit): Headers {
    const result = new Headers(headers);
    const token = readAuthorization();
    if (token && !result.has('Authorization')) result.set('Authorization', token);
    return result;
}

function pad(n: number): string {
    return String(n).padStart(2, '0');
}

/** Platform time format, in the browser's zone. */
export function formatDateTime(d: Date): string {
    return (
        `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
        `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
    );
}

const isBlob = (v: unknown): v is Blob => typeof Blob !== 'undefined' && v instanceof Blob;

function scalar(v: unknown): string {
    if (v instanceof Date) return formatDateTime(v);
    if (typeof v === 'object' && v !== null) return JSON.stringify(v);
    return String(v);
}

/**
 * Flattens params into key/value pairs as queries and forms carry them: undefined and null are left out,
 * Dates become 'YYYY-MM-DD HH:mm:ss', objects and arrays holding objects become one JSON string, arrays of
 * plain values follow `arrays`, Files and Blobs are kept for multipart.
 */
export function toPairs(
    params: Record<string, unknown>,
    arrays: ArrayEncoding = 'repeat',
): Array<[string, string | Blob]> {
    const pairs: Array<[string, string | Blob]> = [];
    for (const [key, value] of Object.entries(params)) {
        if (value === undefined || value === null) continue;
        if (isBlob(value)) {
            pairs.push([key, value]);
        } else if (Array.isArray(value)) {
            const items = value.filter((v) => v !== undefined && v !== null);
            if (items.some(isBlob)) {
                for (const item of items) pairs.push([key, isBlob(item) ? item : scalar(item)]);
            } else if (arrays === 'json' || items.some((v) => typeof v === 'object' && !(v instanceof Date))) {
                pairs.push([key, JSON.stringify(items)]);
            } else if (arrays === 'comma') {
                pairs.push([key, items.map(scalar).join(',')]);
            } else {
                for (const item of items) pairs.push([key, scalar(item)]);
            }
        } else {
            pairs.push([key, scalar(value)]);
        }
    }
    return pairs;
}

export function toQuery(params: Record<string, unknown>, arrays?: ArrayEncoding): string {
    const search = new URLSearchParams();
    for (const [k, v] of toPairs(params, arrays)) if (typeof v === 'string') search.append(k, v);
    return search.toString();
}

/** application/x-www-form-urlencoded, or multipart FormData as soon as one value is a File or Blob. */
export function toForm(params: Record<string, unknown>, arrays?: ArrayEncoding): URLSearchParams | FormData {
    const pairs = toPairs(params, arrays);
    if (pairs.some(([, v]) => typeof v !== 'string')) {
        const form = new FormData();
        for (const [k, v] of pairs) form.append(k, v);
        return form;
    }
    const search = new URLSearchParams();
    for (const [k, v] of pairs) search.append(k, v as string);
    return search;
}

function xhrSend(url: string, init: SendInit, timeout: number, onProgress: (f: number) => void): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open(init.method, url);
        xhr.timeout = timeout;
        new Headers(init.headers).forEach((value, key) => xhr.setRequestHeader(key, value));
        xhr.upload.onprogress = (e) => {
            if (e.lengthComputable && e.total > 0) onProgress(Math.min(1, e.loaded / e.total));
        };
        xhr.onload = () => {
            onProgress(1);
            const headers = new Headers();
            for (const line of xhr
                .getAllResponseHeaders()
                .trim()
                .split(/[\r\n]+/)) {
                const i = line.indexOf(':');
                if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
            }
            resolve({ status: xhr.status, headers, text: xhr.responseText });
        };
        xhr.onerror = () => reject(new HttpError(NETWORK_MESSAGE, 0, null));
        xhr.ontimeout = () => reject(new HttpError(TIMEOUT_MESSAGE, 408, null));
        xhr.onabort = () => reject(new DOMException('The operation was aborted.', 'AbortError'));
        if (init.signal) {
            if (init.signal.aborted) return xhr.abort();
            init.signal.addEventListener('abort', () => xhr.abort(), { once: true });
        }
        xhr.send(init.body as XMLHttpRequestBodyInit | null | undefined);
    });
}

/**
 * One request with the Authorization header, the timeout (merged with the caller's abort signal) and the
 * platform's Chinese messages for a timeout (HttpError 408) and a network failure (HttpError status 0).
 * An abort by the caller (react-admin cancelling a query) rejects with the AbortError untouched.
 */
export async function send(url: string, init: SendInit, options: HttpOptions = {}): Promise<RawAnswer> {
    const timeout = options.timeout ?? DEFAULT_TIMEOUT;
    const headers = withAuthorization(init.headers);
    if (init.onProgress) return xhrSend(url, { ...init, headers }, timeout, init.onProgress);

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
    }, timeout);
    // A fetch that ignores its signal must still give up on time, so the abort is raced, not only signalled.
    const aborted = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
    );
    aborted.catch(() => undefined);
    const onAbort = () => controller.abort(init.signal?.reason);
    if (init.signal?.aborted) onAbort();
    else init.signal?.addEventListener('abort', onAbort, { once: true });
    const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    try {
        const response = await Promise.race([
            doFetch(url, {
                method: init.method,
                headers,
                body: init.body,
                signal: controller.signal,
                credentials: 'same-origin',
            }),
            aborted,
        ]);
        const text = await Promise.race([response.text(), aborted]);
        return { status: response.status, headers: response.headers, text };
    } catch (error) {
        if (timedOut) throw new HttpError(TIMEOUT_MESSAGE, 408, null);
        if (init.signal?.aborted) throw error;
        if (error instanceof HttpError) throw error;
        throw new HttpError(NETWORK_MESSAGE, 0, null);
    } finally {
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onAbort);
    }
}
