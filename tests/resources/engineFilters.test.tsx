import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine/types';
import { mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * The engine's filter kinds for lists whose call needs a choice and a time window (FilterSpec `required`,
 * `searchable`, `input: 'dateRange'` with `to`), and WidgetAction `closeLabel`, on a small definition of their own.
 */

let sites = [
    { siteId: 'S1', siteName: '一号站' },
    { siteId: 'S2', siteName: '二号站' },
    { siteId: 'S3', siteName: '三号泵站' },
];
const asked: URLSearchParams[] = [];
const last = () => asked[asked.length - 1];

const readings = defineResource<AnyPaths>({
    name: 'readings',
    label: '读数',
    fields: { time: { label: '时间' }, value: { label: '读数' } },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/readings',
            title: '读数',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'readings' },
                        columns: ['time', 'value'],
                        rowId: 'time',
                        urlPrefix: 'r_',
                        filters: [
                            {
                                source: 'siteId',
                                label: '站点',
                                input: 'select',
                                searchable: true,
                                required: true,
                                choicesFrom: { call: 'sites', optionValue: 'siteId', optionText: 'siteName' },
                            },
                            { source: 'from', to: 'until', label: '时间', input: 'dateRange' },
                        ],
                        rowActions: [
                            {
                                kind: 'widget',
                                label: '查看',
                                title: '读数详情',
                                widget: 'jsonView',
                                props: ({ record }) => ({ text: JSON.stringify(record) }),
                                closeLabel: '关闭',
                            },
                        ],
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            sites: { get: '/api/sites', read: 'data' },
            readings: {
                get: '/api/readings',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
        },
    },
});

beforeEach(() => {
    asked.length = 0;
    sites = [
        { siteId: 'S1', siteName: '一号站' },
        { siteId: 'S2', siteName: '二号站' },
        { siteId: 'S3', siteName: '三号泵站' },
    ];
    mswServer.use(
        http.get('*/api/sites', () => ok(sites)),
        http.get('*/api/readings', ({ request }) => {
            const p = new URL(request.url).searchParams;
            asked.push(p);
            return ok({ records: [{ time: `t-${p.get('siteId')}`, value: 1 }], total: 1 });
        }),
    );
});

describe('required, searchable and date-range filters', () => {
    it('asks nothing until the required select has a value, then starts on its first choice (URL untouched)', async () => {
        renderDefinitions([readings], '/readings');
        expect(await screen.findByText('t-S1')).toBeInTheDocument();
        expect(asked.map((p) => p.get('siteId'))).toEqual(['S1']);
        expect(searchParam('r_siteId')).toBeNull();
        // Searchable: typing narrows the choices; a required select offers no 全部 and cannot be cleared.
        const select = screen.getByRole('combobox', { name: '站点' });
        expect(select).toHaveValue('一号站');
        await userEvent.clear(select);
        await userEvent.type(select, '泵');
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['三号泵站']);
        await userEvent.click(within(listbox).getByRole('option', { name: '三号泵站' }));
        expect(await screen.findByText('t-S3')).toBeInTheDocument();
        expect(searchParam('r_siteId')).toBe('S3');
        expect(screen.queryByRole('button', { name: '清除' })).not.toBeInTheDocument();
    });

    it('says there is nothing to choose when the call answers no choices', async () => {
        sites = [];
        renderDefinitions([readings], '/readings');
        expect(await screen.findByText('暂无可选的站点')).toBeInTheDocument();
        expect(asked).toHaveLength(0);
    });

    it('keeps a date range as two epoch-ms params under the prefix, the end inclusive to its minute', async () => {
        renderDefinitions([readings], '/readings?r_siteId=S2');
        await screen.findByText('t-S2');
        const group = await screen.findByRole('group', { name: '时间' });
        const startInput = await within(group).findByLabelText('开始时间');
        fireEvent.change(startInput, { target: { value: '2026-01-02 03:04' } });
        await waitFor(() => expect(last().get('from')).toBe(String(new Date(2026, 0, 2, 3, 4).getTime())));
        expect(startInput).toHaveValue('2026-01-02 03:04');
        fireEvent.change(within(group).getByLabelText('结束时间'), { target: { value: '2026-01-02 05:06' } });
        const end = String(new Date(2026, 0, 2, 5, 6, 59, 999).getTime());
        await waitFor(() => expect(last().get('until')).toBe(end));
        expect(searchParam('r_until')).toBe(end);
        // Cleared, the end is open again.
        fireEvent.change(within(group).getByLabelText('结束时间'), { target: { value: '' } });
        await waitFor(() => expect(last().get('until')).toBeNull());
    });

    it('sets the range from its shortcuts: 近7天 is seven whole days ending tonight', async () => {
        renderDefinitions([readings], '/readings?r_siteId=S2');
        await screen.findByText('t-S2');
        const group = await screen.findByRole('group', { name: '时间' });
        fireEvent.click(await within(group).findByRole('button', { name: '近7天' }));
        const today = new Date();
        const from = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 6).getTime();
        const until = new Date(today.getFullYear(), today.getMonth(), today.getDate(), 23, 59, 59, 999).getTime();
        await waitFor(() => expect(last().get('from')).toBe(String(from)));
        expect(last().get('until')).toBe(String(until));
        expect(within(group).getByLabelText('开始时间')).toHaveValue(
            `${new Date(from).getFullYear()}-${String(new Date(from).getMonth() + 1).padStart(2, '0')}-${String(new Date(from).getDate()).padStart(2, '0')} 00:00`,
        );
        fireEvent.click(within(group).getByRole('button', { name: '今天' }));
        const midnight = new Date(today.getFullYear(), today.getMonth(), today.getDate()).getTime();
        await waitFor(() => expect(last().get('from')).toBe(String(midnight)));
    });

    it('closes a widget dialog with its closeLabel button', async () => {
        renderDefinitions([readings], '/readings?r_siteId=S2');
        await screen.findByText('t-S2');
        fireEvent.click(screen.getByRole('button', { name: '查看' }));
        const dialog = await screen.findByRole('dialog', { name: '读数详情' });
        expect((await within(dialog).findByLabelText('消息内容')).textContent).toContain('"time": "t-S2"');
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    });
});
