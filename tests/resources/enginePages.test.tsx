import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { currentLocation, fail, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * Declared screens: a detail page (record from the route, header, tabs in the URL) whose tabs hold lists over
 * custom calls, with counters, filters, row and bulk actions, paging kept in the URL under each list's prefix.
 */

interface Gadget {
    gadgetId: number;
    name: string;
    status: 'ON' | 'OFF';
    kind: string;
}

interface Reading {
    readingId: number;
    gadgetId: number;
    value: number;
}

let gadgets: Gadget[] = [];
let readings: Reading[] = [];
let notes: Reading[] = [];
const calls: Array<{ path: string; params: URLSearchParams }> = [];
let failReadings = 0;
const saved: Array<{ path: string; body: URLSearchParams }> = [];

const record = (path: string, url: string) => {
    const params = new URL(url).searchParams;
    calls.push({ path, params });
    return params;
};

function page<T>(rows: T[], params: URLSearchParams) {
    const n = Number(params.get('pageNumber') ?? 1);
    const size = Number(params.get('pageSize') ?? 10);
    return rows.slice((n - 1) * size, n * size);
}

const handlers = () => [
    http.get('*/api/gadget/detail', ({ request }) => {
        const params = record('detail', request.url);
        const found = gadgets.find((g) => String(g.gadgetId) === params.get('gadgetId'));
        return found ? ok(found) : fail('设备不存在');
    }),
    http.get('*/api/gadget/kinds', () =>
        ok([
            { code: 'T', label: '温度' },
            { code: 'H', label: '湿度' },
        ]),
    ),
    http.get('*/api/gadget/readings', ({ request }) => {
        const params = record('readings', request.url);
        if (failReadings > 0) {
            failReadings -= 1;
            return fail('读数服务暂不可用', 500);
        }
        const rows = readings.filter(
            (r) =>
                String(r.gadgetId) === params.get('gadgetId') &&
                (!params.get('min') || r.value >= Number(params.get('min'))),
        );
        return ok({
            records: page(rows, params),
            total: rows.length,
            count: rows.length,
            high: rows.filter((r) => r.value > 50).length,
        });
    }),
    http.get('*/api/gadget/notes', ({ request }) => {
        const params = record('notes', request.url);
        return ok({ records: page(notes, params), total: notes.length });
    }),
    http.post('*/api/gadget/clear', async ({ request }) => {
        const body = new URLSearchParams(await request.text());
        const ids = body.getAll('ids').map(Number);
        readings = readings.filter((r) => !ids.includes(r.readingId));
        return ok(null);
    }),
    http.post('*/api/gadget/addRtsp', async ({ request }) => {
        saved.push({ path: 'rtsp', body: new URLSearchParams(await request.text()) });
        return ok(null);
    }),
    http.post('*/api/gb/add', async ({ request }) => {
        saved.push({ path: 'gb', body: new URLSearchParams(await request.text()) });
        return ok(null);
    }),
    http.post('*/api/gadget/forget', async ({ request }) => {
        const body = new URLSearchParams(await request.text());
        readings = readings.filter((r) => String(r.readingId) !== body.get('readingId'));
        return ok(null);
    }),
];

const gadgetResource = defineResource<AnyPaths>({
    name: 'gadgets',
    label: '小部件',
    idField: 'gadgetId',
    fields: {
        gadgetId: { label: '编号', readOnly: true },
        name: { label: '名称' },
        status: {
            label: '状态',
            type: 'status',
            choices: [
                { id: 'ON', name: '运行中', color: 'success' },
                { id: 'OFF', name: '已停止', color: 'default' },
            ],
        },
        kind: { label: '类型' },
        readingId: { label: '读数编号' },
        value: { label: '读数', type: 'number' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/gadgetDetail/:gadgetId/*',
            title: '小部件详情',
            back: { label: '小部件列表', to: '/gadgets' },
            record: {
                call: 'detail',
                params: ({ route }) => ({ gadgetId: route.gadgetId }),
                notFound: '该小部件不存在或已删除',
            },
            header: {
                title: ({ record }) => `小部件 ${String(record.name ?? '')}`,
                status: 'status',
                fields: ['gadgetId', 'kind'],
            },
            tabs: [
                {
                    key: 'info',
                    label: '基本信息',
                    sections: [{ kind: 'fields', title: '信息', fields: ['name', 'kind'] }],
                },
                {
                    key: 'readings',
                    label: '读数',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'readings', params: ({ route }) => ({ gadgetId: route.gadgetId }) },
                                columns: ['readingId', 'value'],
                                rowId: 'readingId',
                                urlPrefix: 'r_',
                                perPage: 2,
                                perPageOptions: [2, 5],
                                jumper: true,
                                filters: [
                                    {
                                        source: 'min',
                                        label: '最小读数',
                                        input: 'select',
                                        choices: [
                                            { id: 10, name: '≥10' },
                                            { id: 50, name: '≥50' },
                                        ],
                                    },
                                ],
                                counters: {
                                    items: [
                                        { label: '读数总数', value: 'total' },
                                        { label: '偏高', value: 'high' },
                                    ],
                                },
                                rowActions: [
                                    {
                                        kind: 'call',
                                        label: '忽略',
                                        call: {
                                            call: 'forget',
                                            params: ({ record }) => ({ readingId: record.readingId }),
                                        },
                                        confirm: ({ record }) => `确定忽略读数 ${String(record.readingId)}？`,
                                        success: '已忽略',
                                    },
                                ],
                                bulkActions: [
                                    {
                                        kind: 'call',
                                        label: '批量清除',
                                        call: {
                                            call: 'clear',
                                            params: ({ selected }) => ({ ids: selected?.map((r) => r.readingId) }),
                                        },
                                        success: '已清除',
                                    },
                                ],
                                empty: { text: '暂无读数' },
                                toolbar: [
                                    {
                                        kind: 'form',
                                        label: '添加来源',
                                        fields: [
                                            [
                                                'protocol',
                                                {
                                                    label: '协议',
                                                    input: 'select',
                                                    choices: [
                                                        { id: 'rtsp', name: 'RTSP' },
                                                        { id: 'gb', name: 'GB28181' },
                                                    ],
                                                },
                                            ],
                                            ['title', { label: '标题' }],
                                        ],
                                        defaults: () => ({ protocol: 'rtsp' }),
                                        submit: {
                                            call: 'addRtsp',
                                            by: ({ values }) => (values?.protocol === 'gb' ? 'addGb' : undefined),
                                            params: ({ values }) => ({ title: values?.title }),
                                        },
                                        success: '来源已添加',
                                    },
                                ],
                            },
                        },
                        {
                            kind: 'list',
                            title: '备注',
                            list: {
                                source: { call: 'notes' },
                                columns: ['readingId'],
                                rowId: 'readingId',
                                urlPrefix: 'n_',
                                perPage: 2,
                            },
                        },
                    ],
                },
                {
                    key: 'filtered',
                    label: '按类型',
                    when: ({ record }) => record.status === 'ON',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'readings', params: ({ route }) => ({ gadgetId: route.gadgetId }) },
                                columns: ['readingId'],
                                rowId: 'readingId',
                                filters: [
                                    {
                                        source: 'kind',
                                        label: '类型',
                                        input: 'select',
                                        choicesFrom: { call: 'kinds', optionValue: 'code', optionText: 'label' },
                                    },
                                ],
                            },
                        },
                    ],
                },
            ],
        },
        {
            path: '/gadgetTabs/:gadgetId',
            title: '按序号',
            record: { call: 'detail', params: ({ route }) => ({ gadgetId: route.gadgetId }) },
            tabParam: { query: 'checkIdx', indexBase: 1 },
            tabs: [
                { key: 'a', label: '第一', sections: [{ kind: 'fields', fields: ['name'] }] },
                { key: 'b', label: '第二', sections: [{ kind: 'fields', fields: ['kind'] }] },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            detail: { get: '/api/gadget/detail', read: 'data' },
            kinds: { get: '/api/gadget/kinds', read: 'data' },
            readings: { get: '/api/gadget/readings', paging: ['pageNumber', 'pageSize'], read: 'data.records' },
            notes: { get: '/api/gadget/notes', paging: ['pageNumber', 'pageSize'], read: 'data.records' },
            clear: { post: '/api/gadget/clear' },
            forget: { post: '/api/gadget/forget' },
            addRtsp: { post: '/api/gadget/addRtsp' },
            addGb: { post: '/api/gb/add' },
        },
    },
});

const SLOW = { timeout: 15_000 };
const rowsOf = (table: HTMLElement) => within(table).getAllByRole('row').slice(1);

beforeEach(() => {
    gadgets = [
        { gadgetId: 1, name: '一号<b>机</b>', status: 'ON', kind: 'T' },
        { gadgetId: 2, name: '二号机', status: 'OFF', kind: 'H' },
    ];
    readings = Array.from({ length: 5 }, (_, i) => ({ readingId: i + 1, gadgetId: 1, value: (i + 1) * 20 }));
    notes = Array.from({ length: 3 }, (_, i) => ({ readingId: 100 + i, gadgetId: 1, value: 0 }));
    calls.length = 0;
    saved.length = 0;
    failReadings = 0;
    mswServer.use(...handlers());
});

describe('declared detail page', () => {
    it('loads the record from the route: header title, status chip, fields; names stay text', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/info');
        expect(await screen.findByRole('heading', { name: '小部件 一号<b>机</b>' }, SLOW)).toBeInTheDocument();
        expect(screen.getByText('运行中')).toBeInTheDocument();
        expect(screen.getByRole('tab', { name: '基本信息', selected: true })).toBeInTheDocument();
        const info = screen.getByRole('region', { name: '信息' });
        expect(within(info).getByText('一号<b>机</b>')).toBeInTheDocument();
        expect(calls.find((c) => c.path === 'detail')?.params.get('gadgetId')).toBe('1');
    });

    it('says the record is gone, with the way back', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/9/info');
        expect(await screen.findByText(/该小部件不存在或已删除/, {}, SLOW)).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回小部件列表' })).toHaveAttribute('href', '/gadgets');
    });

    it('keeps the tab in the path and hides a tab whose `when` fails', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/2/info');
        await screen.findByRole('tab', { name: '基本信息' }, SLOW);
        expect(screen.queryByRole('tab', { name: '按类型' })).not.toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '读数' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/gadgetDetail/2/readings'));
        expect(await screen.findByText('暂无读数')).toBeInTheDocument();
    });

    it('keeps the tab in a 1-based query param (checkIdx) and falls back to the first', async () => {
        renderDefinitions([gadgetResource], '/gadgetTabs/1?checkIdx=2');
        expect(await screen.findByRole('tab', { name: '第二', selected: true }, SLOW)).toBeInTheDocument();
        expect(screen.getByText('T')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '第一' }));
        await waitFor(() => expect(searchParam('checkIdx')).toBe('1'));
        expect(await screen.findByText('一号<b>机</b>')).toBeInTheDocument();
    });
});

describe('lists over custom calls', () => {
    it('pages two lists on one page apart, each under its URL prefix, with counters from the answer', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings');
        const tables = await screen.findAllByRole('table', {}, SLOW);
        await waitFor(() => expect(rowsOf(tables[0])).toHaveLength(2));
        expect(screen.getByRole('group', { name: '统计' })).toHaveTextContent('读数总数5偏高3');
        const readingsCall = calls.filter((c) => c.path === 'readings').at(-1)!;
        expect(readingsCall.params.get('gadgetId')).toBe('1');
        expect(readingsCall.params.get('pageSize')).toBe('2');

        const pagers = screen.getAllByRole('navigation', { name: '分页' });
        fireEvent.click(within(pagers[0]).getByRole('button', { name: '第 3 页' }));
        await waitFor(() => expect(searchParam('r_page')).toBe('3'));
        await waitFor(() => expect(rowsOf(screen.getAllByRole('table')[0])).toHaveLength(1));
        expect(searchParam('n_page')).toBeNull();

        fireEvent.click(within(pagers[1]).getByRole('button', { name: '第 2 页' }));
        await waitFor(() => expect(searchParam('n_page')).toBe('2'));
        expect(searchParam('r_page')).toBe('3');
        await waitFor(() => expect(within(screen.getAllByRole('table')[1]).getByText('102')).toBeInTheDocument());
    });

    it('jumps to a page typed into 跳至 and filters with the URL saying so', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings');
        await screen.findAllByRole('table', {}, SLOW);
        const jumper = screen.getByRole('textbox', { name: '跳至页码' });
        fireEvent.change(jumper, { target: { value: '2' } });
        fireEvent.keyDown(jumper, { key: 'Enter' });
        await waitFor(() => expect(searchParam('r_page')).toBe('2'));

        fireEvent.mouseDown(screen.getByRole('combobox', { name: '最小读数' }));
        fireEvent.click(within(await screen.findByRole('listbox')).getByRole('option', { name: '≥50' }));
        await waitFor(() => expect(searchParam('r_min')).toBe('50'));
        expect(searchParam('r_page')).toBe('1');
        await waitFor(() =>
            expect(
                calls
                    .filter((c) => c.path === 'readings')
                    .at(-1)
                    ?.params.get('min'),
            ).toBe('50'),
        );
        expect(screen.getByRole('group', { name: '统计' })).toHaveTextContent('读数总数3');
    });

    it('runs a row action after its confirmation and steps back from a page it empties', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings?r_page=3');
        const table = (await screen.findAllByRole('table', {}, SLOW))[0];
        await waitFor(() => expect(within(table).getByText('5')).toBeInTheDocument());
        fireEvent.click(within(table).getByRole('button', { name: '忽略' }));
        const dialog = await screen.findByRole('dialog');
        expect(dialog).toHaveTextContent('确定忽略读数 5？');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已忽略')).toBeInTheDocument();
        await waitFor(() => expect(searchParam('r_page')).toBe('2'));
        expect(readings.map((r) => r.readingId)).toEqual([1, 2, 3, 4]);
    });

    it('selects rows and runs a bulk action over them', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings');
        const table = (await screen.findAllByRole('table', {}, SLOW))[0];
        await waitFor(() => expect(rowsOf(table)).toHaveLength(2));
        for (const row of rowsOf(table)) fireEvent.click(within(row).getByRole('checkbox'));
        const bar = await screen.findByRole('status');
        expect(bar).toHaveTextContent('已选择 2 项');
        fireEvent.click(within(bar).getByRole('button', { name: '批量清除' }));
        expect(await screen.findByText('已清除')).toBeInTheDocument();
        expect(readings.map((r) => r.readingId)).toEqual([3, 4, 5]);
        await waitFor(() => expect(within(screen.getAllByRole('table')[0]).getByText('3')).toBeInTheDocument());
    });

    it('shows the error with 重试, which asks again', async () => {
        failReadings = 10;
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings');
        const retry = await screen.findByRole('button', { name: '重试' }, SLOW);
        expect(screen.getByText(/读数服务暂不可用/)).toBeInTheDocument();
        failReadings = 0;
        fireEvent.click(retry);
        await waitFor(() => expect(screen.getAllByRole('table')).toHaveLength(2));
    });

    it('offers select choices that come from a call', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/filtered');
        fireEvent.mouseDown(await screen.findByRole('combobox', { name: '类型' }, SLOW));
        const options = within(await screen.findByRole('listbox')).getAllByRole('option');
        expect(options.map((o) => o.textContent)).toEqual(['全部', '温度', '湿度']);
        fireEvent.click(options[2]);
        await waitFor(() => expect(searchParam('kind')).toBe('H'));
        await waitFor(() =>
            expect(
                calls
                    .filter((c) => c.path === 'readings')
                    .at(-1)
                    ?.params.get('kind'),
            ).toBe('H'),
        );
    });
});

describe('a call chosen by a form value', () => {
    it('saves through the call the protocol names, though the paths share no prefix', async () => {
        renderDefinitions([gadgetResource], '/gadgetDetail/1/readings');
        const open = async () => {
            fireEvent.click(await screen.findByRole('button', { name: '添加来源' }, SLOW));
            return screen.findByRole('dialog', { name: '添加来源' });
        };
        let dialog = await open();
        fireEvent.change(within(dialog).getByLabelText('标题'), { target: { value: '东门' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('来源已添加')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

        dialog = await open();
        fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: /协议/ }));
        fireEvent.click(within(await screen.findByRole('listbox')).getByRole('option', { name: 'GB28181' }));
        fireEvent.change(within(dialog).getByLabelText('标题'), { target: { value: '西门' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(saved).toHaveLength(2));
        expect(saved.map((s) => [s.path, s.body.get('title')])).toEqual([
            ['rtsp', '东门'],
            ['gb', '西门'],
        ]);
    });
});
