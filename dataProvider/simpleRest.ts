import simpleRestProvider from 'ra-data-simple-rest';
import { HttpError, type DataProvider } from 'ra-core';
import { send, type HttpOptions } from './http';

type FetchJsonOptions = { method?: string; headers?: HeadersInit; body?: BodyInit | null; signal?: AbortSignal };

/**
 * fetchUtils.fetchJson's contract (JSON in, `{ status, headers, body, json }` out, HttpError on non-2xx) over our
 * transport, so plain-REST resources get the same Authorization header, timeout and messages.
 */
export function restHttpClient(options: HttpOptions = {}) {
    return async (url: string, init: FetchJsonOptions = {}) => {
        const headers = new Headers(init.headers);
        if (!headers.has('Accept')) headers.set('Accept', 'application/json');
        if (
            init.body !== undefined &&
            init.body !== null &&
            typeof init.body === 'string' &&
            !headers.has('Content-Type')
        )
            headers.set('Content-Type', 'application/json');
        const answer = await send(
            url,
            { method: init.method ?? 'GET', headers, body: init.body, signal: init.signal },
            options,
        );
        let json: unknown;
        try {
            json = answer.text ? JSON.parse(answer.text) : undefined;
        } catch {
            json = undefined;
        }
        if (answer.status < 200 || answer.status >= 300) {
            const message =
                (json as { message?: string; msg?: string } | undefined)?.message ??
                (json as { msg?: string } | undefined)?.msg ??
                `服务器错误（HTTP ${answer.status}）`;
            throw new HttpError(message, answer.status, json ?? answer.text);
        }
        return { status: answer.status, headers: answer.headers, body: answer.text, json };
    };
}

/** ra-data-simple-rest for resources whose backend speaks plain REST (no `api` block). */
export function createSimpleRestProvider(apiUrl: string, options: HttpOptions = {}): DataProvider {
    // fetchJson's declared option type is wider than what simple-rest passes; the cast keeps the transport ours.
    return simpleRestProvider(apiUrl, restHttpClient(options) as unknown as Parameters<typeof simpleRestProvider>[1]);
}
