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

export function ok<T>(c: Context, data: T) {
    switch (familyOf(c.req.path)) {
        case 'ms3':
            return c.json({ code: '000000', msg: 'success', data });
        case 'device':
            return c.json({ code: 0, msg: 'success', data });
        case 'returnCode1111':
            return c.json({ returnCode: '1111', returnMessage: 'success', data });
        case 'returnCode0':
            return c.json({ returnCode: 0, returnMessage: 'success', data });
        default:
            return c.json({ code: 200, msg: 'success', data });
    }
}

export function fail(c: Context, status: ContentfulStatusCode, msg: string) {
    switch (familyOf(c.req.path)) {
        case 'ms3':
            return c.json({ code: '999999', msg }, status);
        case 'device':
            return c.json({ code: 1, msg }, status);
        case 'returnCode1111':
            return c.json({ returnCode: '9999', returnMessage: msg }, status);
        case 'returnCode0':
            return c.json({ returnCode: 1, returnMessage: msg }, status);
        default:
            return c.json({ code: status, msg }, status);
    }
}
