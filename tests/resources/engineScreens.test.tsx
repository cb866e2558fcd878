import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import * as yup from 'yup';
import { defineResource, type AnyPaths } from '../../src/engine';
import { mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * Vocabulary the project screens brought (src/engine/vocabulary.ts, types.ts): the 'buttons' filter, empty states
 * that say when a filter finds nothing and keep the column headers, fixed rows, a list's height, the 'dialog' action, a
 * confirmation read afresh (confirmLoad) with its lines, chart filters / summary / noData, a field's ellipsis, a
 * picker's taken rows, and page loads that wait for the record.
 */

interface Shelf {
    id: number;
    name: string;
    books: number;
}

let shelves: Shelf[] = [];
let freshBooks = 0;
const asked: Array<{ path: string; params: URLSearchParams }> = [];

const note = (path: string, url: string) => {
    const params = new URL(url).searchParams;
    asked.push({ path, params });
    return params;
};

const handlers = () => [
    http.get('*/api/shelf/list', ({ request }) => {
        const params = note('list', request.url);
        const rows = shelves.filter(
            (s) =>
                (!params.get('kind') || String(s.id % 2) === params.get('kind')) &&
                (!params.get('name') || s.name.includes(params.get('name')!)),
        );
        return ok({ records: rows, total: rows.length });
    }),
    http.get('*/api/shelf/kinds', () =>
        ok([
            { code: '0', label: '偶数架' },
            { code: '1', label: '奇数架' },
        ]),
    ),
    http.get('*/api/shelf/get', ({ request }) => {
        const params = note('get', request.url);
        const shelf = shelves.find((s) => String(s.id) === params.get('id'));
        return ok(shelf ? { ...shelf, books: freshBooks || shelf.books, code: `S${shelf.id}` } : null);
    }),
    http.post('*/api/shelf/save', async ({ request }) => {
        const body = new URLSearchParams(await request.text());
        shelves.push({ id: shelves.length + 1, name: body.get('name') ?? '', books: 0 });
        return ok(null);
    }),
    http.delete('*/api/shelf/delete', ({ request }) => {
        const params = note('delete', request.url);
        shelves = shelves.filter((s) => String(s.id) !== params.get('id'));
        return ok(null);
    }),
    http.get('*/api/shelf/trend', ({ request }) => {
        const params = note('trend', request.url);
        const days = Number(params.get('days') ?? 0);
        return ok(Array.from({ length: days }, (_, i) => ({ day: `D${i + 1}`, score: 90 + i })));
    }),
    http.get('*/api/shelf/readers', ({ request }) => {
        note('readers', request.url);
        return ok([
            { readerId: 1, readerName: '张三' },
            { readerId: 2, readerName: '李四' },
        ]);
    }),
    http.get('*/api/shelf/members', ({ request }) => {
        note('members', request.url);
        return ok([{ readerId: 1 }]);
    }),
];

const shelfResource = defineResource<AnyPaths>({
    name: 'shelves',
    label: '书架',
    fields: {
        name: { label: '书架名称' },
        books: { label: '藏书', type: 'number' },
        remark: { label: '说明', ellipsis: 120 },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/shelves',
            title: '书架',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: ['name', 'books', 'remark'],
                        filters: [
                            {
                                source: 'kind',
                                label: '书架类型',
                                input: 'buttons',
                                choicesFrom: { call: 'kinds', optionValue: 'code', optionText: 'label' },
                            },
                            { source: 'name', label: '书架名称' },
                        ],
                        toolbar: [
                            {
                                kind: 'dialog',
                                label: '管理书架',
                                sections: [
                                    {
                                        kind: 'list',
                                        list: {
                                            title: '全部书架',
                                            columns: ['name'],
                                            paging: false,
                                            toolbar: [
                                                {
                                                    kind: 'form',
                                                    label: '添加',
                                                    title: '添加书架',
                                                    fields: ['name'],
                                                    schema: yup.object({
                                                        name: yup.string().required('请输入书架名称'),
                                                    }),
                                                    submit: { call: 'save', params: ({ values }) => ({ ...values }) },
                                                    success: '添加成功',
                                                },
                                            ],
                                        },
                                    },
                                ],
                            },
                        ],
                        rowActions: [
                            {
                                kind: 'call',
                                label: '删除',
                                call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
                                confirmLoad: { call: 'getOne', params: ({ record }) => ({ id: record.id }) },
                                confirm: ({ record }) =>
                                    `确定删除「${String(record.name)}」吗？` +
                                    (Number(record.books) > 0 ? `\n架上还有${String(record.books)}本书` : ''),
                                success: '删除成功',
                            },
                        ],
                        empty: {
                            text: ({ query }) => (query.kind || query.name ? '没有符合条件的书架' : '暂无书架'),
                            hint: ({ query }) => (query.kind || query.name ? '换个条件再试' : '先添加一个书架'),
                        },
                    },
                },
            ],
        },
        {
            path: '/shelf/:id',
            title: '书架概览',
            record: { call: 'getOne', params: ({ route }) => ({ id: route.id }) },
            load: { members: { call: 'members', params: ({ record }) => ({ code: record.code }) } },
            sections: [
                {
                    kind: 'chart',
                    title: '热度',
                    chart: {
                        kind: 'line',
                        call: { call: 'trend', params: ({ route }) => ({ id: route.id }) },
                        x: 'day',
                        series: [{ field: 'score', label: '热度' }],
                        filters: [
                            {
                                source: 'days',
                                label: '范围',
                                input: 'buttons',
                                choices: [
                                    { id: '3', name: '近3天' },
                                    { id: '5', name: '近5天' },
                                ],
                                allLabel: false,
                                defaultValue: '3',
                            },
                        ],
                        summary: (rows) => `最近 ${String(rows[rows.length - 1].score)} 分`,
                        noData: ({ record }) => Number(record.books) === 0,
                        empty: '暂无数据',
                        yRange: [0, 100],
                    },
                },
                {
                    kind: 'list',
                    title: '规划',
                    list: {
                        rows: () => [],
                        columns: [
                            ['plan', { label: '计划' }],
                            ['owner', { label: '负责人' }],
                        ],
                        paging: false,
                        height: 175,
                        empty: { text: '暂无规划', hint: '上线后显示', columns: true },
                    },
                },
                {
                    kind: 'list',
                    title: '读者',
                    list: {
                        source: { call: 'members', params: ({ record }) => ({ code: record.code }) },
                        rowId: 'readerId',
                        columns: [['readerId', { label: '读者' }]],
                        paging: false,
                        toolbar: [
                            {
                                kind: 'form',
                                label: '添加读者',
                                fields: [
                                    [
                                        'readerIds',
                                        {
                                            label: '选择读者',
                                            input: 'picker',
                                            picker: {
                                                source: { call: 'readers' },
                                                rowId: 'readerId',
                                                columns: [['readerName', { label: '姓名' }]],
                                                taken: (row, { data }) =>
                                                    Array.isArray(data?.members) &&
                                                    data.members.some(
                                                        (m: Record<string, unknown>) => m.readerId === row.readerId,
                                                    )
                                                        ? '已是读者'
                                                        : undefined,
                                            },
                                        },
                                    ],
                                ],
                                submit: { call: 'members' },
                            },
                        ],
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: { get: '/api/shelf/list', read: 'data.records', total: 'data.total' },
        getOne: { get: '/api/shelf/get', params: (r) => ({ id: r.id }), read: 'data' },
        delete: { delete: '/api/shelf/delete', params: (r) => ({ id: r.id }) },
        custom: {
            kinds: { get: '/api/shelf/kinds', read: 'data' },
            save: { post: '/api/shelf/save' },
            trend: { get: '/api/shelf/trend', read: 'data' },
            readers: { get: '/api/shelf/readers', read: 'data' },
            members: { get: '/api/shelf/members', read: 'data' },
        },
    },
});

const rowOf = (text: string) => screen.getByText(text).closest('tr')!;

describe('engine vocabulary of the project screens', () => {
    beforeEach(() => {
        shelves = [
            { id: 1, name: '一号架', books: 3 },
            { id: 2, name: '二号架', books: 0 },
        ];
        freshBooks = 0;
        asked.length = 0;
        mswServer.use(...handlers());
    });

    it('filters by toggle buttons in the URL and says when a filter finds nothing', async () => {
        renderDefinitions([shelfResource], '/shelves');
        await screen.findByText('一号架');
        const group = await screen.findByRole('group', { name: '书架类型' });
        await waitFor(() =>
            expect(
                within(group)
                    .getAllByRole('button')
                    .map((b) => b.textContent),
            ).toEqual(['全部', '偶数架', '奇数架']),
        );
        expect(within(group).getByRole('button', { name: '全部' })).toHaveAttribute('aria-pressed', 'true');
        fireEvent.click(within(group).getByRole('button', { name: '偶数架' }));
        await waitFor(() => expect(searchParam('kind')).toBe('0'));
        await waitFor(() => expect(screen.queryByText('一号架')).toBeNull());
        expect(screen.getByText('二号架')).toBeInTheDocument();
        expect(
            asked
                .filter((a) => a.path === 'list')
                .at(-1)!
                .params.get('kind'),
        ).toBe('0');

        await userEvent.type(screen.getByRole('textbox', { name: '书架名称' }), '一号{Enter}');
        expect(await screen.findByText('没有符合条件的书架')).toBeInTheDocument();
        expect(screen.getByText('换个条件再试')).toBeInTheDocument();
    }, 30_000);

    it('says the unfiltered empty text with its hint', async () => {
        shelves = [];
        renderDefinitions([shelfResource], '/shelves');
        expect(await screen.findByText('暂无书架')).toBeInTheDocument();
        expect(screen.getByText('先添加一个书架')).toBeInTheDocument();
    }, 30_000);

    it('cuts a long text to one line with the whole text as its title', async () => {
        shelves = [{ id: 1, name: '一号架', books: 3, remark: '很长的说明'.repeat(20) } as Shelf];
        renderDefinitions([shelfResource], '/shelves');
        // The cut is on the wrapper around the field's own display (the wrapper holds the title).
        const cell = (await screen.findByText('很长的说明'.repeat(20))).closest('[title]');
        expect(cell).toHaveAttribute('title', '很长的说明'.repeat(20));
        expect(cell).toHaveStyle({ whiteSpace: 'nowrap', maxWidth: '120px' });
    }, 30_000);

    it('opens a dialog of sections whose list and form work inside it', async () => {
        renderDefinitions([shelfResource], '/shelves');
        await screen.findByText('一号架');
        fireEvent.click(screen.getByRole('button', { name: '管理书架' }));
        const dialog = await screen.findByRole('dialog', { name: '管理书架' });
        const table = await within(dialog).findByRole('table', { name: '全部书架' });
        await waitFor(() => expect(within(table).getByText('二号架')).toBeInTheDocument());
        fireEvent.click(within(dialog).getByRole('button', { name: '添加' }));
        const add = await screen.findByRole('dialog', { name: '添加书架' });
        await userEvent.type(within(add).getByLabelText(/书架名称/), '三号架');
        fireEvent.click(within(add).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(within(table).getByText('三号架')).toBeInTheDocument());
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加书架' })).toBeNull());
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '管理书架' })).toBeNull());
    }, 30_000);

    it('reads the record afresh when a confirmation opens and shows its lines as paragraphs', async () => {
        renderDefinitions([shelfResource], '/shelves');
        await screen.findByText('一号架');
        freshBooks = 7; // the list still says 3
        fireEvent.click(within(rowOf('一号架')).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(within(confirm).getByText('确定删除「一号架」吗？')).toBeInTheDocument();
        expect(await within(confirm).findByText('架上还有7本书')).toBeInTheDocument();
        expect(asked.some((a) => a.path === 'get' && a.params.get('id') === '1')).toBe(true);
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText('一号架')).toBeNull());
    }, 30_000);

    it('draws a chart whose range lives in the URL, with its summary; noData asks nothing', async () => {
        renderDefinitions([shelfResource], '/shelf/1');
        expect(await screen.findByTestId('chart-summary', undefined, { timeout: 15_000 })).toHaveTextContent(
            '最近 92 分',
        );
        expect(
            asked
                .filter((a) => a.path === 'trend')
                .at(-1)!
                .params.get('days'),
        ).toBe('3');
        fireEvent.click(screen.getByRole('button', { name: '近5天' }));
        await waitFor(() => expect(searchParam('days')).toBe('5'));
        await waitFor(() => expect(screen.getByTestId('chart-summary')).toHaveTextContent('最近 94 分'));
        fireEvent.click(screen.getByRole('button', { name: '近3天' }));
        await waitFor(() => expect(searchParam('days')).toBeNull());
    }, 30_000);

    it('says 暂无数据 without a call when noData holds', async () => {
        renderDefinitions([shelfResource], '/shelf/2');
        const chart = await screen.findByRole('region', { name: '热度' }, { timeout: 15_000 });
        expect(await within(chart).findByText('暂无数据')).toBeInTheDocument();
        expect(within(chart).queryByTestId('chart-summary')).toBeNull();
        expect(asked.some((a) => a.path === 'trend')).toBe(false);
    }, 30_000);

    it('shows fixed rows with their headers when empty, in a list of fixed height', async () => {
        renderDefinitions([shelfResource], '/shelf/1');
        const plans = await screen.findByRole('region', { name: '规划' }, { timeout: 15_000 });
        expect(
            within(plans)
                .getAllByRole('columnheader')
                .map((h) => h.textContent),
        ).toEqual(['计划', '负责人']);
        expect(within(plans).getByText('暂无规划')).toBeInTheDocument();
        expect(within(plans).getByText('上线后显示')).toBeInTheDocument();
        expect(plans.querySelector('.MuiCard-root')).toHaveStyle({ maxHeight: '175px' });
    }, 30_000);

    it('ticks and locks the picker rows already taken; page loads wait for the record', async () => {
        renderDefinitions([shelfResource], '/shelf/1');
        const readers = await screen.findByRole('region', { name: '读者' }, { timeout: 15_000 });
        fireEvent.click(within(readers).getByRole('button', { name: '添加读者' }));
        const dialog = await screen.findByRole('dialog', { name: '添加读者' });
        await within(dialog).findByText('张三');
        const taken = within(dialog).getByText('张三').closest('tr')!;
        expect(taken).toHaveTextContent('已是读者');
        expect(within(taken).getByRole('checkbox')).toBeChecked();
        expect(within(taken).getByRole('checkbox')).toBeDisabled();
        const free = within(dialog).getByText('李四').closest('tr')!;
        expect(within(free).getByRole('checkbox')).not.toBeChecked();
        expect(within(free).getByRole('checkbox')).toBeEnabled();
        // Every members call carried the record's code: none was made before the record arrived.
        const members = asked.filter((a) => a.path === 'members');
        expect(members.length).toBeGreaterThan(0);
        expect(members.every((a) => a.params.get('code') === 'S1')).toBe(true);
    }, 30_000);
});
