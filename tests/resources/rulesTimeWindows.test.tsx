import { screen, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { mswServer, ok, renderApp, shellHandlers } from './helpers';

/**
 * The rule engine's 生效时段 tab (/ruleEngine/TimeWindows): every rule's daily window on the week × hour grid, windows
 * that overlap in lanes of one day, one across midnight going on into the next day; rules without a window are left out.
 */

const RULES = [
    { id: 1, name: '夜间巡检', status: 0, timeWindow: { start: '22:00', end: '06:00' } },
    { id: 2, name: '晚高峰照明', status: 1, timeWindow: { start: '17:30', end: '23:00' } },
    { id: 3, name: '全天告警', status: 1, timeWindow: null },
];

describe('rules: 生效时段', () => {
    it('draws each window on every weekday, overlapping ones side by side, the night one into the next day', async () => {
        mswServer.use(
            ...shellHandlers(),
            http.get('*/api/rule/list', () => ok({ records: RULES, total: RULES.length })),
        );
        renderApp('/ruleEngine/TimeWindows');
        const wednesday = await screen.findByRole('list', { name: '周三' }, { timeout: 15_000 });
        const spans = within(wednesday)
            .getAllByRole('listitem')
            .map((s) => s.getAttribute('aria-label'));
        // The night window's morning part (from Tuesday) and its evening part, and the evening window beside it.
        expect(spans.filter((s) => s?.startsWith('夜间巡检（已停用）'))).toHaveLength(2);
        expect(spans.some((s) => s?.startsWith('晚高峰照明') && s.includes('17:30'))).toBe(true);
        expect(spans.some((s) => s?.includes('全天告警'))).toBe(false);
        expect(screen.getAllByRole('list', { name: /^周/ })).toHaveLength(7);
        expect(within(screen.getByLabelText('图例')).getByText('晚高峰照明')).toBeInTheDocument();
    });
});
