import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

describe('a failed query still reports the DOM (setup.ts: lazyElementError)', () => {
    it('prints the screen in a getBy error, as it was when the query failed', () => {
        render(<p>设备列表</p>);
        const thrown = (() => {
            try {
                screen.getByText('不存在的文字');
            } catch (error) {
                return error as Error;
            }
        })();
        screen.getByText('设备列表').textContent = '已改变';
        expect(thrown?.name).toBe('TestingLibraryElementError');
        expect(thrown?.message).toMatch(/Unable to find an element with the text: 不存在的文字/);
        // Printed on first read: the DOM of that moment, then kept.
        expect(thrown?.message).toContain('已改变');
        expect(thrown?.message).toBe(thrown?.message);
    });

    it('prints the screen once a findBy times out', async () => {
        render(<p>产品列表</p>);
        const error = await waitFor(() => screen.getByText('不存在的文字'), { timeout: 100 }).catch((e: Error) => e);
        expect((error as Error).message).toMatch(/不存在的文字[\s\S]*<p>[\s\S]*产品列表/);
    });
});
