/** A recording stand-in for fetch: answers each request from a handler, keeps what was sent. */
export interface SentRequest {
    url: string;
    method: string;
    headers: Headers;
    body: BodyInit | null | undefined;
    signal?: AbortSignal | null;
    credentials?: RequestCredentials;
}

export type Reply = { status?: number; body?: unknown; text?: string; headers?: Record<string, string> };

export function fakeFetch(
    handler: (req: SentRequest) => Reply | Promise<Reply> = () => ({ body: { code: 200, data: null } }),
) {
    const calls: SentRequest[] = [];
    const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
        const req: SentRequest = {
            url: String(input),
            method: init.method ?? 'GET',
            headers: new Headers(init.headers),
            body: init.body,
            signal: init.signal,
            credentials: init.credentials,
        };
        calls.push(req);
        const reply = await handler(req);
        const text = reply.text ?? JSON.stringify(reply.body ?? null);
        return new Response(text, { status: reply.status ?? 200, headers: reply.headers });
    }) as typeof globalThis.fetch;
    return { fetch, calls, last: () => calls[calls.length - 1] };
}

/** Params of a request as one object: the query string, or a urlencoded / multipart / JSON body. */
export function sentParams(req: SentRequest): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const add = (k: string, v: unknown) => {
        if (k in out) out[k] = ([] as unknown[]).concat(out[k], v);
        else out[k] = v;
    };
    new URL(req.url, 'http://x').searchParams.forEach((v, k) => add(k, v));
    if (req.body instanceof URLSearchParams || req.body instanceof FormData) req.body.forEach((v, k) => add(k, v));
    else if (typeof req.body === 'string') Object.assign(out, JSON.parse(req.body));
    return out;
}
