import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';

/** STOP_TIMEOUT (server/config.ts): the stop's limit, which must leave the drain its time. */
describe('STOP_TIMEOUT', () => {
    const stopMs = (env: NodeJS.ProcessEnv) => loadConfig(env, '/tmp').stopTimeoutMs;

    it('is 30 s by default, and DRAIN_DELAY + 20 s when the drain is that long', () => {
        expect(stopMs({})).toBe(30_000);
        expect(stopMs({ DRAIN_DELAY: '60000' })).toBe(80_000);
        expect(stopMs({ STOP_TIMEOUT: '5' })).toBe(5_000);
    });

    it('is refused in Chinese when it would cut the drain short, or is not a whole number of seconds', () => {
        expect(() => stopMs({ DRAIN_DELAY: '10000', STOP_TIMEOUT: '10' })).toThrow(
            'STOP_TIMEOUT（10 秒）必须长于 DRAIN_DELAY（10000 毫秒）',
        );
        expect(() => stopMs({ STOP_TIMEOUT: '0' })).toThrow('STOP_TIMEOUT 必须是 1~3600 的整数');
        expect(() => stopMs({ STOP_TIMEOUT: '2.5' })).toThrow('STOP_TIMEOUT 必须是 1~3600 的整数');
    });
});
