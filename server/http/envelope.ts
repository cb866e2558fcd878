import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Each API family answers in its own envelope (docs/platform-api.md): general paths with a numeric code
 * (200 on success, the HTTP status otherwise), ms3 paths with the string codes '000000' / '999999', device paths
 * with 0 / 1 (and ListProperty), group paths and one device edit with returnCode '1111' / '9999' and the legacy device edit with returnCode 0 / 1.
 */
export type Family = 'general' | 'ms3' | 'device' | 'returnCode1111' | 'returnCode0';

/** Most specific first: the one device edit that answers returnCode sits inside the device prefix. */
const FAMILIES: Array<[prefix: string, family: Family]> = [
    ['/api/device/UpdateDeviceNickname', 'returnCode1111'],
    ['/api/function/ListProperty', 'device'],
    ['/api/group', 'returnCode1111'],
    ['/api/groups', 'returnCode1111'],
    ['/api/device', 'device'],
    ['/api/log', 'device'],
    ['/ms4/device/', 'returnCode0'],
    ['/ms3/', 'ms3'],
];

export function familyOf(path: string): Family {
    for (const [prefix, family] of FAMILIES) {
        if (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return family;
    }
    return 'general';
}

/** The JSON text of the answers made here, by answer: what the layers after the route read without reading the body. */
const texts = new WeakMap<Response, string>();

/** An answer's JSON text, when it was made by json() (undefined otherwise, or once a layer replaced the answer). */
export function jsonTextOf(res: Response): string | undefined {
    return texts.get(res);
}

/** A JSON answer from its text (headers: Content-Type application/json unless given), kept for jsonTextOf. */
export function jsonText(
    c: Context,
    text: string,
    status?: ContentfulStatusCode,
    headers: Record<string, string> = { 'Content-Type': 'application/json' },
): Response {
    const res = c.body(text, status, headers);
    texts.set(res, text);
    return res;
}

/** c.json(value, status), keeping the text for jsonTextOf. */
export function json(c: Context, value: unknown, status?: ContentfulStatusCode): Response {
    return jsonText(c, JSON.stringify(value), status);
}

export function ok<T>(c: Context, data: T) {
    switch (familyOf(c.req.path)) {
        case 'ms3':
            return json(c, { code: '000000', msg: 'success', data });
        case 'device':
            return json(c, { code: 0, msg: 'success', data });
        case 'returnCode1111':
            return json(c, { returnCode: '1111', returnMessage: 'success', data });
        case 'returnCode0':
            return json(c, { returnCode: 0, returnMessage: 'success', data });
        default:
            return json(c, { code: 200, msg: 'success', data });
    }
}

export function fail(c: Context, status: ContentfulStatusCode, msg: string) {
    switch (familyOf(c.req.path)) {
        case 'ms3':
            return json(c, { code: '999999', msg }, status);
        case 'device':
            return json(c, { code: 1, msg }, status);
        case 'returnCode1111':
            return json(c, { returnCode: '9999', returnMessage: msg }, status);
        case 'returnCode0':
            return json(c, { returnCode: 1, returnMessage: msg }, status);
        default:
            return json(c, { code: status, msg }, status);
    }
}
