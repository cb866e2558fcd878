import { describe, expect, it } from 'vitest';
import { enabledOf, idOf } from '../../server/routes/ruleHandlers';

/** What /api/rule and /api/alert-rule read alike (server/routes/ruleHandlers.ts). */

describe('rule handlers', () => {
    it('reads enabled as true/false, 1/0, and refuses anything else', () => {
        expect([true, 'true', 1, '1'].map(enabledOf)).toEqual([true, true, true, true]);
        expect([false, 'false', 0, '0'].map(enabledOf)).toEqual([false, false, false, false]);
        expect(() => enabledOf('yes')).toThrow('参数 enabled 应为 true 或 false');
        expect(() => idOf(undefined)).toThrow('缺少规则ID');
    });
});
