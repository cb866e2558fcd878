import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertEvents, rules } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { chooseOption, dismissNotifications, mswServer, platformHandler, renderApp } from './helpers';

/**
 * The rule engine's screens (resources/rules.tsx, resources/alerts.tsx) against the reference platform in-process:
 * the rule editor with rows chosen from the thing model, the server's refusal shown in the dialog, enable / disable,
 * and /monitor/deviceAlarm's bulk 处理 with a remark.
 */

describe('rule engine screens against the platform', () => {
    let platform: TestServer;

    beforeAll(async () => {
        platform = await createTestServer({ seed: true });
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    const dialog = () => screen.getByRole('dialog');
    const combo = (scope: HTMLElement, name: RegExp) => within(scope).getByRole('combobox', { name });

    it('makes a rule from the thing model; the server refuses an out-of-range value in the dialog', async () => {
        renderApp('/ruleEngine/Linkedge');
        fireEvent.click((await screen.findAllByRole('button', { name: '新建规则' }, { timeout: 10_000 }))[0]);
        await screen.findByRole('dialog', {}, { timeout: 5_000 });
        fireEvent.change(within(dialog()).getByRole('textbox', { name: /规则名称/ }), {
            target: { value: '功率过高开灯' },
        });
        await chooseOption(await waitFor(() => combo(dialog(), /^产品/), { timeout: 5_000 }), '智能路灯_L1');

        const trigger = within(dialog()).getByRole('group', { name: '触发条件第1行' });
        await chooseOption(
            await waitFor(() => combo(trigger, /^属性（/), { timeout: 5_000 }),
            /有功功率（ActivePower）/,
        );

        fireEvent.click(within(dialog()).getByRole('button', { name: '添加过滤条件' }));
        const condition = within(dialog()).getByRole('group', { name: '过滤条件第1行' });
        await chooseOption(
            await waitFor(() => combo(condition, /^属性/), { timeout: 5_000 }),
            /有功功率（ActivePower）/,
        );
        fireEvent.change(within(condition).getByRole('textbox', { name: '值' }), { target: { value: '5000' } });

        fireEvent.click(within(dialog()).getByRole('button', { name: '添加执行动作' }));
        const action = within(dialog()).getByRole('group', { name: '执行动作第1行' });
        fireEvent.change(within(action).getByRole('textbox', { name: '内容模板' }), {
            target: { value: '${deviceName} 功率 ${value} W' },
        });
        // A second action, then deleted again.
        fireEvent.click(within(dialog()).getByRole('button', { name: '添加执行动作' }));
        fireEvent.click(within(dialog()).getByRole('button', { name: '删除执行动作第2行' }));

        fireEvent.click(within(dialog()).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('过滤条件第 1 行的比较值不能大于 2000')).toBeInTheDocument();
        expect(await platform.db.select().from(rules).where(eq(rules.name, '功率过高开灯'))).toHaveLength(0);

        fireEvent.change(within(condition).getByRole('textbox', { name: '值' }), { target: { value: '100' } });
        fireEvent.click(within(dialog()).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('保存成功')).toBeInTheDocument();
        const [saved] = await platform.db.select().from(rules).where(eq(rules.name, '功率过高开灯'));
        expect(saved.conditions).toEqual([
            expect.objectContaining({ source: 'property', identifier: 'ActivePower', operator: '>', value: 100 }),
        ]);
        expect(saved.actions).toEqual([
            expect.objectContaining({ type: 'alert', level: 2, content: '${deviceName} 功率 ${value} W' }),
        ]);
        expect(saved.triggers).toEqual([expect.objectContaining({ type: 'property', identifier: 'ActivePower' })]);

        const row = (await screen.findByText('功率过高开灯')).closest('tr')!;
        expect(within(row).getByText('已启用')).toBeInTheDocument();
        // The row's buttons are reachable once the closing dialog no longer hides the page (aria-hidden).
        fireEvent.click(await within(row).findByRole('button', { name: '停用 功率过高开灯' }));
        expect(await screen.findByText('已停用')).toBeInTheDocument();
        await waitFor(async () => {
            const [after] = await platform.db.select().from(rules).where(eq(rules.id, saved.id));
            expect(after.enabled).toBe(false);
        });
    });

    it('handles selected alerts in bulk with a remark on /monitor/deviceAlarm', async () => {
        renderApp('/monitor/deviceAlarm?status=0');
        const table = await screen.findByRole('table', {}, { timeout: 10_000 });
        const rows = await waitFor(() => {
            const r = within(table).getAllByRole('row').slice(1);
            expect(r.length).toBeGreaterThan(2);
            return r;
        });
        const ids = await platform.db
            .select({ id: alertEvents.id, params: alertEvents.params })
            .from(alertEvents)
            .where(eq(alertEvents.status, 0));
        expect(ids.length).toBeGreaterThan(2);
        fireEvent.click(within(rows[0]).getByRole('checkbox'));
        fireEvent.click(within(rows[1]).getByRole('checkbox'));
        fireEvent.click(await screen.findByRole('button', { name: '批量处理' }));
        await screen.findByRole('dialog');
        fireEvent.click(within(dialog()).getByRole('button', { name: '确定' }));
        expect(await within(dialog()).findByText('请输入处理备注')).toBeInTheDocument();
        fireEvent.change(within(dialog()).getByRole('textbox', { name: /处理备注/ }), {
            target: { value: '已派人到现场' },
        });
        await dismissNotifications();
        fireEvent.click(within(dialog()).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已处理 2 条告警')).toBeInTheDocument();
        const handled = await platform.db
            .select({ id: alertEvents.id })
            .from(alertEvents)
            .where(and(eq(alertEvents.status, 1), eq(alertEvents.remark, '已派人到现场')));
        expect(handled).toHaveLength(2);
        expect(
            await platform.db
                .select()
                .from(alertEvents)
                .where(
                    inArray(
                        alertEvents.id,
                        handled.map((h) => h.id),
                    ),
                ),
        ).toHaveLength(2);
    });
});
