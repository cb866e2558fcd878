import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type Action } from '../../src/engine';
import { chooseOption, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * Engine concepts first needed by the group screens, on an entity of their own (shelves holding boxes): a
 * header subtitle, a list's label and counters title, the dialog filter with its chip, the filtered empty text,
 * the selection after a bulk action, the page's record beside a row (scope.page), a form's live schema and `ready`, the
 * tree's own roots call with `blocked` and `note`, and the picker's rowLabel, selectedText, empty and required
 * filter.
 */

interface Box {
    boxId: number;
    code: string;
    color: string;
}

let boxes: Box[] = [];
let shelfAsks = 0;
const removed: URLSearchParams[] = [];
const saved: URLSearchParams[] = [];
const asked: Array<{ path: string; params: URLSearchParams }> = [];

const handlers = () => [
    http.get('*/api/shelf/list', () => {
        shelfAsks += 1;
        return ok({ records: [{ shelfId: 1, name: '一号货架' }], total: 1 });
    }),
    http.get('*/api/shelf/detail', () => ok({ shelfId: 1, name: '一号货架', path: ['仓库', '一号货架'] })),
    http.get('*/api/shelf/boxes', ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push({ path: 'boxes', params: q });
        const rows = boxes.filter((b) => !q.get('color') || b.color === q.get('color'));
        return ok({ records: rows, total: rows.length, red: rows.filter((b) => b.color === 'red').length });
    }),
    http.post('*/api/shelf/remove', async ({ request }) => {
        const body = new URLSearchParams(await request.text());
        removed.push(body);
        const ids = (body.get('boxId') ?? '').split(',');
        boxes = boxes.filter((b) => !ids.includes(String(b.boxId)));
        return ok(null);
    }),
    http.get('*/api/shelf/areas', ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push({ path: 'areas', params: q });
        return ok([{ areaId: 5, areaName: `${q.get('site') ?? ''}区`, level: 1 }]);
    }),
    http.get('*/api/shelf/area-children', ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push({ path: 'area-children', params: q });
        return ok([{ areaId: 55, areaName: '角落', level: 2 }]);
    }),
    http.get('*/api/shelf/loose', ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push({ path: 'loose', params: q });
        const all = [
            { boxId: 7, code: 'BX-07' },
            { boxId: 8, code: 'BX-08' },
        ];
        const rows = q.get('kind') === 'big' ? all : [];
        return ok({ list: rows, total: rows.length });
    }),
    http.post('*/api/shelf/put', async ({ request }) => {
        saved.push(new URLSearchParams(await request.text()));
        return ok(null);
    }),
];

const removeBox: Action = {
    kind: 'call',
    label: '取下',
    call: { call: 'remove', params: ({ record, page }) => ({ shelfId: page?.shelfId, boxId: record.boxId }) },
    confirm: ({ record, page }) => `确定从「${String(page?.name)}」取下 ${String(record.code)} 吗？`,
    success: '已取下',
};

const putBoxes: Action = {
    kind: 'form',
    label: '放上箱子',
    fields: [
        ['site', { label: '库区' }],
        [
            'areaId',
            {
                label: '位置',
                input: 'tree',
                tree: {
                    roots: { call: 'areas', params: ({ values }) => ({ site: values?.site }) },
                    source: { call: 'areaChildren' },
                    parentParam: 'parentId',
                    optionValue: 'areaId',
                    optionText: 'areaName',
                    disabled: (_node, level) => level >= 2,
                    note: (_node, level) => (level >= 2 ? '太深了，不能放' : undefined),
                    blocked: (values) => (values.site ? undefined : '先填库区'),
                },
            },
        ],
        [
            'boxIds',
            {
                label: '散放的箱子',
                input: 'picker',
                picker: {
                    source: { call: 'loose' },
                    rowId: 'boxId',
                    rowLabel: 'code',
                    columns: [['code', { label: '编号' }]],
                    filters: [
                        {
                            source: 'kind',
                            label: '尺寸',
                            input: 'select',
                            allLabel: false,
                            required: '先选尺寸',
                            choices: [
                                { id: 'big', name: '大' },
                                { id: 'small', name: '小' },
                            ],
                        },
                    ],
                    selectedText: (n) => `已挑 ${n} 只箱子`,
                    empty: '这个尺寸没有散放的箱子',
                },
            },
        ],
    ],
    // Typing says the short rule; 确定 says the one of the save.
    liveSchema: yup.object({ site: yup.string().required('库区不能为空').max(3, '库区最多3个字') }),
    schema: yup.object({ site: yup.string().required('保存前请填库区').max(3, '库区最多3个字') }),
    defaults: () => ({ site: '', boxIds: [] }),
    ready: (values) => Array.isArray(values.boxIds) && values.boxIds.length > 0,
    submit: { call: 'put', params: ({ values }) => ({ site: values?.site, boxIds: values?.boxIds }) },
    success: '已放上',
};

const shelves = defineResource<AnyPaths>({
    name: 'shelves',
    label: '货架',
    idField: 'shelfId',
    fields: { name: { label: '名称' }, code: { label: '编号' }, color: { label: '颜色' } },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/shelves',
            title: '货架',
            sections: [
                {
                    kind: 'list',
                    list: {
                        columns: ['name'],
                        rowId: 'shelfId',
                        refresh: '刷新列表',
                    },
                },
            ],
        },
        {
            path: '/shelf/:id',
            title: '货架详情',
            record: { call: 'detail', params: ({ route }) => ({ shelfId: route.id }) },
            header: {
                title: ({ record }) => String(record.name),
                subtitle: ({ record }) => (record.path as string[]).join(' / '),
            },
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'boxes', params: ({ record }) => ({ shelfId: record.shelfId }) },
                        label: '架上的箱子',
                        rowId: 'boxId',
                        columns: ['code', 'color'],
                        counters: { title: '箱子统计', items: [{ label: '红箱：', value: 'red' }] },
                        filters: [
                            {
                                source: 'color',
                                label: '按颜色',
                                input: 'dialog',
                                dialog: {
                                    title: '按颜色筛选',
                                    fields: [['color', { label: '颜色', required: true }]],
                                    schema: yup.object({ color: yup.string().trim().required('请填颜色') }),
                                    note: '只看这种颜色的箱子。',
                                    chip: (v) => `颜色：${v.color}`,
                                },
                            },
                        ],
                        toolbar: [putBoxes],
                        rowActions: [removeBox],
                        bulkActions: [
                            {
                                kind: 'call',
                                label: '全部取下',
                                call: {
                                    call: 'remove',
                                    params: ({ record, selected }) => ({
                                        shelfId: record.shelfId,
                                        boxId: selected?.map((b) => b.boxId).join(','),
                                    }),
                                },
                                success: '已全部取下',
                            },
                        ],
                        empty: { text: '架上没有箱子', action: putBoxes, filtered: '没有这种颜色的箱子' },
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/shelf/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        custom: {
            detail: { get: '/api/shelf/detail', read: 'data' },
            boxes: {
                get: '/api/shelf/boxes',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            remove: { post: '/api/shelf/remove' },
            areas: { get: '/api/shelf/areas', read: 'data' },
            areaChildren: { get: '/api/shelf/area-children', read: 'data' },
            loose: {
                get: '/api/shelf/loose',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.list',
                total: 'data.total',
            },
            put: { post: '/api/shelf/put', arrays: 'comma' },
        },
    },
});

const SLOW = { timeout: 15_000 };

beforeEach(() => {
    boxes = [
        { boxId: 1, code: 'BX-01', color: 'red' },
        { boxId: 2, code: 'BX-02', color: 'blue' },
    ];
    shelfAsks = 0;
    removed.length = 0;
    saved.length = 0;
    asked.length = 0;
    mswServer.use(...handlers());
});

describe('lists on declared pages', () => {
    it("刷新列表 (the list's refresh button) asks the list again", async () => {
        renderDefinitions([shelves], '/shelves');
        expect(await screen.findByText('一号货架', undefined, SLOW)).toBeInTheDocument();
        expect(shelfAsks).toBe(1);
        fireEvent.click(screen.getByRole('button', { name: '刷新列表' }));
        await waitFor(() => expect(shelfAsks).toBe(2));
    });

    it('shows the header subtitle, names the table and the figures, filters through a dialog, and says a filtered empty list apart', async () => {
        renderDefinitions([shelves], '/shelf/1');
        expect(await screen.findByRole('heading', { name: '一号货架' }, SLOW)).toBeInTheDocument();
        expect(screen.getByText('仓库 / 一号货架', { selector: 'p' })).toBeInTheDocument();
        const table = await screen.findByRole('table', { name: '架上的箱子' });
        expect(within(table).getByText('BX-01')).toBeInTheDocument();
        expect(within(screen.getByRole('group', { name: '箱子统计' })).getByText('1')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: '按颜色' }));
        const dialog = await screen.findByRole('dialog', { name: '按颜色筛选' });
        expect(within(dialog).getByText('只看这种颜色的箱子。')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请填颜色')).toBeInTheDocument();
        await userEvent.type(within(dialog).getByRole('textbox', { name: /颜色/ }), ' green ');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(searchParam('color')).toBe('green'));
        expect(
            asked
                .filter((a) => a.path === 'boxes')
                .at(-1)
                ?.params.get('color'),
        ).toBe('green');
        expect(screen.getByText('颜色：green')).toBeInTheDocument();
        // Nothing matches: the filtered text, and no action that would fill an empty list.
        expect(await screen.findByText('没有这种颜色的箱子')).toBeInTheDocument();
        expect(screen.queryByText('架上没有箱子')).not.toBeInTheDocument();
        expect(screen.getAllByRole('button', { name: '放上箱子' })).toHaveLength(1);

        // The chip's delete clears every field of the dialog.
        fireEvent.click(within(screen.getByRole('button', { name: '清除按颜色' })).getByTestId('CancelIcon'));
        await waitFor(() => expect(searchParam('color')).toBeNull());
        expect(await screen.findByText('BX-02')).toBeInTheDocument();
    });

    it("gives a row's actions the page's record as scope.page", async () => {
        renderDefinitions([shelves], '/shelf/1');
        const table = await screen.findByRole('table', { name: '架上的箱子' }, SLOW);
        const row = (await within(table).findByText('BX-02')).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '取下' }));
        const confirm = await screen.findByRole('dialog');
        expect(within(confirm).getByText('确定从「一号货架」取下 BX-02 吗？')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已取下')).toBeInTheDocument();
        expect(Object.fromEntries(removed[0])).toEqual({ shelfId: '1', boxId: '2' });
        boxes = [];
        await waitFor(() => expect(screen.queryByText('BX-02')).not.toBeInTheDocument());
    });

    it('drops rows a bulk action removed from the selection', async () => {
        renderDefinitions([shelves], '/shelf/1');
        const table = await screen.findByRole('table', { name: '架上的箱子' }, SLOW);
        const row = (await within(table).findByText('BX-01')).closest('tr')!;
        fireEvent.click(within(row).getByRole('checkbox'));
        const bar = await screen.findByRole('status');
        expect(bar).toHaveTextContent('已选择 1 项');
        fireEvent.click(within(bar).getByRole('button', { name: '全部取下' }));
        expect(await screen.findByText('已全部取下')).toBeInTheDocument();
        expect(Object.fromEntries(removed[0])).toEqual({ shelfId: '1', boxId: '1' });
        await waitFor(() => expect(within(table).queryByText('BX-01')).not.toBeInTheDocument());
        await waitFor(() => expect(screen.queryByText(/已选择/)).not.toBeInTheDocument());
    });

    it('shows the empty text with its action when nothing is there', async () => {
        boxes = [];
        renderDefinitions([shelves], '/shelf/1');
        expect(await screen.findByText('架上没有箱子', undefined, SLOW)).toBeInTheDocument();
        expect(screen.getAllByRole('button', { name: '放上箱子' })).toHaveLength(2);
    });
});

describe('form actions', () => {
    it('speaks the live schema while typing and the save schema on 确定; 确定 waits for ready; the tree and picker options', async () => {
        renderDefinitions([shelves], '/shelf/1');
        fireEvent.click(await screen.findByRole('button', { name: '放上箱子' }, SLOW));
        const dialog = await screen.findByRole('dialog', { name: '放上箱子' });
        const ok = within(dialog).getByRole('button', { name: '确定' });
        expect(ok).toBeDisabled();

        // Picker: nothing asked until the required filter has a value; then rows named by rowLabel.
        expect(within(dialog).getByText('先选尺寸')).toBeInTheDocument();
        expect(asked.some((a) => a.path === 'loose')).toBe(false);
        await chooseOption(within(dialog).getByRole('combobox', { name: /尺寸/ }), '小');
        expect(await within(dialog).findByText('这个尺寸没有散放的箱子')).toBeInTheDocument();
        await chooseOption(within(dialog).getByRole('combobox', { name: /尺寸/ }), '大');
        fireEvent.click(await within(dialog).findByRole('checkbox', { name: '选择 BX-08' }));
        expect(within(dialog).getByText('已挑 1 只箱子')).toBeInTheDocument();
        await waitFor(() => expect(ok).not.toBeDisabled());

        // Tree: blocked until 库区 is filled, no call; then its own roots call, children by the source call.
        fireEvent.click(within(dialog).getByRole('textbox', { name: '位置' }));
        let tree = await screen.findByRole('tree', { name: '位置' });
        expect(within(tree).getByText('先填库区')).toBeInTheDocument();
        expect(asked.some((a) => a.path === 'areas')).toBe(false);
        fireEvent.keyDown(tree, { key: 'Escape' });
        await waitFor(() => expect(screen.queryByRole('tree')).not.toBeInTheDocument());

        // 确定 with 库区 empty: the save schema's message.
        fireEvent.click(ok);
        expect(await within(dialog).findByText('保存前请填库区')).toBeInTheDocument();
        const site = within(dialog).getByRole('textbox', { name: '库区' });
        await userEvent.type(site, 'ABCD');
        expect(await within(dialog).findByText('库区最多3个字')).toBeInTheDocument();
        await userEvent.clear(site);
        // Emptied while typing: the live schema's words, not the save schema's.
        expect(await within(dialog).findByText('库区不能为空')).toBeInTheDocument();
        expect(within(dialog).queryByText('保存前请填库区')).not.toBeInTheDocument();
        await userEvent.type(site, 'A');

        fireEvent.click(within(dialog).getByRole('textbox', { name: '位置' }));
        tree = await screen.findByRole('tree', { name: '位置' });
        await within(tree).findByRole('treeitem', { name: 'A区' });
        expect(asked.find((a) => a.path === 'areas')?.params.get('site')).toBe('A');
        fireEvent.click(within(tree).getByRole('button', { name: '展开 A区' }));
        const deep = await within(tree).findByRole('treeitem', { name: '角落' });
        expect(asked.find((a) => a.path === 'area-children')?.params.get('parentId')).toBe('5');
        expect(deep).toHaveAttribute('aria-disabled', 'true');
        expect(within(deep).getByText('太深了，不能放')).toBeInTheDocument();
        fireEvent.click(within(tree).getByText('A区'));
        await waitFor(() => expect(screen.queryByRole('tree')).not.toBeInTheDocument());

        fireEvent.click(ok);
        expect(await screen.findByText('已放上')).toBeInTheDocument();
        expect(Object.fromEntries(saved[0])).toEqual({ site: 'A', boxIds: '8' });
    });
});
