import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from 'ra-core';
import {
    DEFAULT_TIMEOUT,
    NETWORK_MESSAGE,
    TIMEOUT_MESSAGE,
    readAuthorization,
    send,
    toForm,
    toPairs,
    toQuery,
} from '../../dataProvider/http';
import { fakeFetch } from './fakeFetch';

function memoryStorage(entries: Record<string, string> = {}) {
    const map = new Map(Object.entries(entries));
    return {
        getItem: (k: string) => map.get(k) ?? null,
        setItem: (k: string, v: string) => void map.set(k, String(v)),
        removeItem: (k: string) => void map.delete(k),
    };
}

afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
});

describe('Authorization header', () => {
    it('takes the Authorization cookie first, decoded', async () => {
        vi.stubGlobal('document', { cookie: 'theme=dark; Authorization=Bearer%20abc; x=1' });
        vi.stubGlobal('localStorage', memoryStorage({ Authorization: 'from-storage' }));
        expect(readAuthorization()).toBe('Bearer abc');
        const f = fakeFetch();
        await send('/api/x', { method: 'GET' }, { fetch: f.fetch });
        expect(f.last().headers.get('Authorization')).toBe('Bearer abc');
        expect(f.last().credentials).toBe('same-origin');
    });

    it('falls back to local storage when no cookie carries it', async () => {
        vi.stubGlobal('document', { cookie: 'XAuthorization=nope; other=1' });
        vi.stubGlobal('localStorage', memoryStorage({ Authorization: 'tok-123' }));
        const f = fakeFetch();
        await send('/api/x', { method: 'GET' }, { fetch: f.fetch });
        expect(f.last().headers.get('Authorization')).toBe('tok-123');
    });

    it('sends no header when neither holds a token (the HttpOnly cookie travels by itself)', async () => {
        vi.stubGlobal('document', { cookie: '' });
        vi.stubGlobal('localStorage', memoryStorage());
        const f = fakeFetch();
        await send('/api/x', { method: 'GET' }, { fetch: f.fetch });
        expect(f.last().headers.has('Authorization')).toBe(false);
        expect(f.last().credentials).toBe('same-origin');
    });
});

describe('timeout and network failures', () => {
    const never = (() => new Promise<Response>(() => undefined)) as typeof fetch;

    it('gives up after the timeout with HttpError 408 even when fetch ignores its signal', async () => {
        const error = await send('/api/x', { method: 'GET' }, { fetch: never, timeout: 20 }).catch((e) => e);
        expect(error).toBeInstanceOf(HttpError);
        expect(error.message).toBe(TIMEOUT_MESSAGE);
        expect(error.message).toBe('请求超时，请稍后重试');
        expect(error.status).toBe(408);
    });

    it('waits the default 60,000 ms and no less', async () => {
        vi.useFakeTimers();
        expect(DEFAULT_TIMEOUT).toBe(60_000);
        let settled: unknown;
        send('/api/x', { method: 'GET' }, { fetch: never }).catch((e) => (settled = e));
        await vi.advanceTimersByTimeAsync(59_999);
        expect(settled).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1);
        expect((settled as HttpError).status).toBe(408);
    });

    it('aborts the fetch signal on timeout', async () => {
        let seen: AbortSignal | undefined;
        const f = ((_: unknown, init: RequestInit) => {
            seen = init.signal ?? undefined;
            return new Promise<Response>(() => undefined);
        }) as typeof fetch;
        await send('/api/x', { method: 'GET' }, { fetch: f, timeout: 10 }).catch(() => undefined);
        expect(seen?.aborted).toBe(true);
    });

    it('passes a caller abort through as an AbortError, not as a timeout', async () => {
        const controller = new AbortController();
        const pending = send('/api/x', { method: 'GET', signal: controller.signal }, { fetch: never, timeout: 5000 });
        controller.abort();
        const error = await pending.catch((e) => e);
        expect(error).not.toBeInstanceOf(HttpError);
        expect(error.name).toBe('AbortError');
    });

    it('turns a failed fetch into the network message', async () => {
        const failing = (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch;
        const error = await send('/api/x', { method: 'GET' }, { fetch: failing }).catch((e) => e);
        expect(error).toBeInstanceOf(HttpError);
        expect(error.message).toBe(NETWORK_MESSAGE);
        expect(error.message).toBe('网络异常，请检查网络连接后重试');
    });
});

describe('query and form encoding', () => {
    it('repeats keys for arrays of plain values by default; comma and json on request', () => {
        expect(toQuery({ ids: [1, 2, 3] })).toBe('ids=1&ids=2&ids=3');
        expect(toQuery({ ids: [1, 2, 3] }, 'comma')).toBe('ids=1%2C2%2C3');
        expect(toQuery({ ids: [1, 2] }, 'json')).toBe(`ids=${encodeURIComponent('[1,2]')}`);
    });

    it('sends objects and arrays of objects as JSON strings whatever the array rule', () => {
        const items = [{ key: 'a', value: 'b' }];
        expect(toPairs({ items, spec: { min: 1 } }, 'comma')).toEqual([
            ['items', JSON.stringify(items)],
            ['spec', '{"min":1}'],
        ]);
    });

    it('leaves out undefined and null, keeps empty strings, false and 0, formats dates', () => {
        const when = new Date(2024, 0, 2, 3, 4, 5);
        expect(toPairs({ a: undefined, b: null, c: '', d: false, e: 0, t: when })).toEqual([
            ['c', ''],
            ['d', 'false'],
            ['e', '0'],
            ['t', '2024-01-02 03:04:05'],
        ]);
    });

    it('is urlencoded without files and multipart as soon as one value is a File', () => {
        const plain = toForm({ productKey: 'pk1', deviceName: ['a', 'b'] });
        expect(plain).toBeInstanceOf(URLSearchParams);
        expect(plain.toString()).toBe('productKey=pk1&deviceName=a&deviceName=b');

        const file = new File(['deviceName\nd1'], 'devices.csv', { type: 'text/csv' });
        const multipart = toForm({ productKey: 'pk1', file });
        expect(multipart).toBeInstanceOf(FormData);
        expect((multipart as FormData).get('productKey')).toBe('pk1');
        expect(((multipart as FormData).get('file') as File).name).toBe('devices.csv');
    });
});

describe('upload progress through XMLHttpRequest', () => {
    class FakeXHR {
        static last: FakeXHR;
        method = '';
        url = '';
        timeout = 0;
        status = 0;
        responseText = '';
        headers: Record<string, string> = {};
        body: unknown;
        upload: { onprogress?: (e: { lengthComputable: boolean; loaded: number; total: number }) => void } = {};
        onload?: () => void;
        onerror?: () => void;
        ontimeout?: () => void;
        onabort?: () => void;
        constructor() {
            FakeXHR.last = this;
        }
        open(method: string, url: string) {
            this.method = method;
            this.url = url;
        }
        setRequestHeader(k: string, v: string) {
            this.headers[k.toLowerCase()] = v;
        }
        getAllResponseHeaders() {
            return 'content-type: application/json\r\n';
        }
        send(body: unknown) {
            this.body = body;
        }
        abort() {
            this.onabort?.();
        }
    }

    it('reports progress fractions, then 1 on load, and answers status and text', async () => {
        vi.stubGlobal('XMLHttpRequest', FakeXHR);
        vi.stubGlobal('localStorage', memoryStorage({ Authorization: 'tok' }));
        const progress: number[] = [];
        const form = toForm({ file: new File(['x'], 'a.csv') });
        const pending = send(
            '/api/upload',
            { method: 'POST', body: form, onProgress: (f) => progress.push(f) },
            { timeout: 1234 },
        );
        const xhr = FakeXHR.last;
        expect(xhr.method).toBe('POST');
        expect(xhr.url).toBe('/api/upload');
        expect(xhr.timeout).toBe(1234);
        expect(xhr.headers.authorization).toBe('tok');
        expect(xhr.body).toBe(form);
        xhr.upload.onprogress?.({ lengthComputable: true, loaded: 25, total: 100 });
        xhr.upload.onprogress?.({ lengthComputable: false, loaded: 50, total: 0 });
        xhr.upload.onprogress?.({ lengthComputable: true, loaded: 100, total: 100 });
        xhr.status = 200;
        xhr.responseText = '{"code":200}';
        xhr.onload?.();
        const answer = await pending;
        expect(progress).toEqual([0.25, 1, 1]);
        expect(answer.status).toBe(200);
        expect(answer.text).toBe('{"code":200}');
        expect(answer.headers.get('content-type')).toBe('application/json');
    });

    it('maps XHR timeout and error to the Chinese messages', async () => {
        vi.stubGlobal('XMLHttpRequest', FakeXHR);
        const t = send('/u', { method: 'POST', onProgress: () => undefined });
        FakeXHR.last.ontimeout?.();
        await expect(t).rejects.toMatchObject({ message: TIMEOUT_MESSAGE, status: 408 });
        const n = send('/u', { method: 'POST', onProgress: () => undefined });
        FakeXHR.last.onerror?.();
        await expect(n).rejects.toMatchObject({ message: NETWORK_MESSAGE });
    });
});
