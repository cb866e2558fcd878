import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import * as yup from 'yup';
import { describe, expect, it } from 'vitest';
import { defineResource, timeRangeRule, type AnyPaths } from '../../src/engine';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/**
 * A time range that may cross midnight (issue 40 item 7): type 'timeRange' shows 22:00–次日 06:00 in the list, its
 * input puts 次日 beside an end not after the start, `timeRangeRule` refuses a half range and equal ends in Chinese,
 * and the value is sent as `{ start, end }`.
 */

const QUIET = [
    { id: 1, name: '夜间免打扰', quiet: { start: '22:00', end: '06:00' } },
    { id: 2, name: '午休', quiet: { start: '12:00', end: '13:30' } },
];

const quietHours = defineResource<AnyPaths>({
    name: 'quietHours',
    label: '免打扰',
    fields: {
        name: { label: '名称', required: true },
        quiet: { label: '免打扰时段', type: 'timeRange', required: true },
    },
    schema: yup.object({
        name: yup.string().required('请输入名称'),
        quiet: timeRangeRule({ label: '免打扰时段', required: true }),
    }),
    list: { perPage: 10, perPageOptions: [10], createInDialog: true, createLabel: '新建免打扰' },
    views: { show: false, edit: false },
    api: {
        success: 'code200',
        getList: { get: '/api/test/quiet/list', read: 'data' },
        create: { post: '/api/test/quiet/save', body: 'json' },
    },
});

function serve() {
    const saved: unknown[] = [];
    mswServer.use(
        http.get('*/api/test/quiet/list', () => ok(QUIET)),
        http.post('*/api/test/quiet/save', async ({ request }) => {
            saved.push(await request.json());
            return ok({ id: 3 });
        }),
    );
    return saved;
}

async function openCreate() {
    renderDefinitions([quietHours], '/quietHours');
    await waitFor(() => expect(bodyRows()).toHaveLength(2));
    fireEvent.click(screen.getByRole('button', { name: '新建免打扰' }));
    const dialog = await screen.findByRole('dialog', { name: '新建免打扰' });
    const start = await within(dialog).findByRole('textbox', { name: '免打扰时段开始' });
    const end = within(dialog).getByRole('textbox', { name: '免打扰时段结束' });
    return { dialog, start, end };
}

describe("type 'timeRange'", () => {
    it('shows a range crossing midnight with 次日 in the list, a same-day one without', async () => {
        serve();
        renderDefinitions([quietHours], '/quietHours');
        await waitFor(() => expect(bodyRows()).toHaveLength(2));
        expect(within(bodyRows()[0]).getByText('22:00–次日 06:00')).toBeInTheDocument();
        expect(within(bodyRows()[1]).getByText('12:00–13:30')).toBeInTheDocument();
    });

    it('marks an end not after the start with 次日 and sends { start, end }', async () => {
        const saved = serve();
        const { dialog, start, end } = await openCreate();
        fireEvent.change(within(dialog).getByRole('textbox', { name: '名称' }), { target: { value: '夜班' } });
        fireEvent.change(start, { target: { value: '08:00' } });
        fireEvent.change(end, { target: { value: '18:00' } });
        expect(within(dialog).queryByText('次日')).toBeNull();
        fireEvent.change(start, { target: { value: '22:00' } });
        fireEvent.change(end, { target: { value: '06:00' } });
        expect(within(dialog).getByText('次日')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(saved).toHaveLength(1));
        expect(saved[0]).toEqual({ name: '夜班', quiet: { start: '22:00', end: '06:00' } });
    });

    it('refuses an empty range, a missing end and equal ends with Chinese messages', async () => {
        const saved = serve();
        const { dialog, start, end } = await openCreate();
        fireEvent.change(within(dialog).getByRole('textbox', { name: '名称' }), { target: { value: '夜班' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请选择免打扰时段')).toBeInTheDocument();
        fireEvent.change(start, { target: { value: '22:00' } });
        expect(await within(dialog).findByText('请选择免打扰时段的结束时间')).toBeInTheDocument();
        fireEvent.change(end, { target: { value: '22:00' } });
        expect(await within(dialog).findByText('免打扰时段的开始和结束时间不能相同')).toBeInTheDocument();
        // An end equal to the start is on the next day too (a whole day, when the rule allows it).
        expect(within(dialog).getByText('次日')).toBeInTheDocument();
        expect(saved).toHaveLength(0);
    });
});

describe('timeRangeRule', () => {
    it('takes an empty range as null unless required, and a whole day when allowSame', async () => {
        await expect(timeRangeRule().validate({ start: '', end: '' })).resolves.toBeNull();
        await expect(timeRangeRule({ allowSame: true }).validate({ start: '00:00', end: '00:00' })).resolves.toEqual({
            start: '00:00',
            end: '00:00',
        });
        await expect(timeRangeRule({ label: '值班' }).validate({ start: '8:00', end: '09:00' })).rejects.toThrow(
            '值班的时间格式应为 HH:mm',
        );
    });
});
