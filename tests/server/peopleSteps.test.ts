import { describe, expect, it } from 'vitest';
import { loginHistoryFilter, securitySettings } from '../../server/routes/peopleSecurity';

/** Steps of the people and security handlers (server/routes/people*.ts). */

describe('security centre', () => {
    it('filters the login history by a part of the name and success 0 or 1, refusing anything else', () => {
        expect(loginHistoryFilter(undefined, undefined)).toBeUndefined();
        expect(loginHistoryFilter('ad', '1')).toBeDefined();
        expect(() => loginHistoryFilter('x'.repeat(51), undefined)).toThrow('登录名不得超过50个字符');
        expect(() => loginHistoryFilter(undefined, 'yes')).toThrow('success 只能是 0 或 1');
    });

    it('answers the sign-on limits in seconds, from the server throttle', () => {
        const settings = securitySettings({
            throttle: {
                username: { threshold: 3, windowMs: 60_000, baseLockMs: 30_000, maxLockMs: 600_000 },
                ip: { threshold: 9, windowMs: 1, baseLockMs: 1, maxLockMs: 1 },
            },
        } as Parameters<typeof securitySettings>[0]);
        expect(settings.lockout).toEqual({
            threshold: 3,
            windowSeconds: 60,
            baseLockSeconds: 30,
            maxLockSeconds: 600,
            addressThreshold: 9,
        });
    });
});
