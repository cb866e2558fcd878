import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { fail, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * The vocabulary's detail-page concepts, each on one small entity (a pump with readings, notes and labels): the
 * record's loading text, a tab fallback read from the scope, tabpanels, `Scope.page` in row actions, note and tabs
 * sections, a dialog action whose list keeps its URL state while open, a list's 刷新, `failure` and empty hint, a
 * form whose defaults come from a `load` call, key/value rows whose saved ones are deleted through a call after a
 * confirmation, and an upload's own `check`.
 */

interface Label {
    labelId: number;
    key: string;
    value: string;
}

let labels: Label[] = [];
let readingCalls = 0;
let failReadings = false;
const deleted: string[] = [];
let held: Promise<void> = Promise.resolve();

const handlers = () => [
    http.get('*/api/pump/get', async ({ request }) => {
        await held;
        const id = new URL(request.url).searchParams.get('pumpId');
        return id === '7' ? ok({ pumpId: 7, name: '一号泵' }) : fail('泵不存在', 404);
    }),
    http.get('*/api/pump/readings', ({ request }) => {
        readingCalls += 1;
        if (failReadings) return fail('服务内部错误', 404);
        const url = new URL(request.url);
        const rows = [1, 2, 3].map((n) => ({ readingId: n, pumpId: url.searchParams.get('pumpId'), value: n * 10 }));
        return ok({ records: url.searchParams.get('kind') === 'none' ? [] : rows, total: 3 });
    }),
    http.get('*/api/pump/labels', () => ok(labels)),
    http.post('*/api/pump/label/delete', async ({ request }) => {
        const body = new URLSearchParams(await request.text());
        deleted.push(body.get('labelId') ?? '');
        if (body.get('labelId') === '2') return fail('删除失败');
        labels = labels.filter((l) => String(l.labelId) !== body.get('labelId'));
        return ok(null);
    }),
    http.post('*/api/pump/labels/save', () => ok(null)),
    http.post('*/api/pump/upload', () => HttpResponse.json({ code: 200, data: null })),
];

const readings = {
    source: { call: 'readings', params: ({ page }: { page?: Record<string, unknown> }) => ({ pumpId: page?.pumpId }) },
    rowId: 'readingId',
    columns: [['value', { label: '读数' }]] as Array<[string, { label: string }]>,
};

const pumps = defineResource<AnyPaths>({
    name: 'pumps',
    label: '水泵',
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/pump/:pumpId/*',
            title: '水泵详情',
            record: {
                call: 'get',
                params: ({ route }) => ({ pumpId: route.pumpId }),
                loading: '水泵信息加载中…',
                notFoundTitle: '水泵不存在',
            },
            header: { title: ({ record }) => String(record.name) },
            tabParam: { fallback: ({ query }) => (query.big === 'true' ? 'more' : undefined) },
            tabs: [
                {
                    key: 'info',
                    label: '信息',
                    sections: [
                        {
                            kind: 'note',
                            text: '暂无订阅',
                            hint: ({ record }) => `${String(record.name)}的订阅将在后续版本提供`,
                        },
                        {
                            kind: 'list',
                            list: {
                                ...readings,
                                title: '读数',
                                refresh: '刷新读数',
                                failure: '未上报读数',
                                empty: { text: '暂无读数', hint: '上报后刷新查看' },
                                rowActions: [
                                    {
                                        kind: 'dialog',
                                        label: '详情',
                                        title: ({ record }) => `读数 ${String(record.value)}`,
                                        sections: [
                                            {
                                                kind: 'list',
                                                list: {
                                                    ...readings,
                                                    title: '同泵读数',
                                                    urlPrefix: 'd_',
                                                    filters: [
                                                        {
                                                            source: 'kind',
                                                            label: '种类',
                                                            input: 'tabs',
                                                            allLabel: false,
                                                            defaultValue: 'all',
                                                            choices: [
                                                                { id: 'all', name: '全部读数' },
                                                                { id: 'none', name: '无' },
                                                            ],
                                                        },
                                                    ],
                                                    empty: {
                                                        text: ({ record, page }) =>
                                                            `${String(page?.name)}没有${String(record.value)}的同类读数`,
                                                    },
                                                },
                                            },
                                        ],
                                    },
                                ],
                            },
                        },
                    ],
                },
                {
                    key: 'more',
                    label: '更多',
                    sections: [
                        {
                            kind: 'tabs',
                            param: 'sub',
                            label: '更多',
                            tabs: [
                                { key: 'a', label: '甲', sections: [{ kind: 'note', text: '甲页' }] },
                                { key: 'b', label: '乙', sections: [{ kind: 'note', text: '乙页' }] },
                            ],
                        },
                    ],
                },
                {
                    key: 'labels',
                    label: '标签',
                    sections: [
                        {
                            kind: 'fields',
                            fields: [['name', { label: '名称' }]],
                            actions: [
                                {
                                    kind: 'form',
                                    label: '编辑标签',
                                    load: { call: 'labels', params: ({ record }) => ({ pumpId: record.pumpId }) },
                                    defaults: ({ data }) => ({
                                        rows: ((data?.load as Label[]) ?? []).map((l) => ({ ...l })),
                                    }),
                                    fields: [
                                        [
                                            'rows',
                                            {
                                                label: '标签',
                                                input: 'keyValue',
                                                keyValue: {
                                                    keyLabel: 'Key',
                                                    valueLabel: 'Value',
                                                    remove: {
                                                        when: (row) => !!row.labelId,
                                                        confirm: (row) => `是否删除标签「${String(row.key)}」？`,
                                                        call: {
                                                            call: 'deleteLabel',
                                                            params: ({ values }) => ({ labelId: values?.labelId }),
                                                        },
                                                        failure: '删除失败',
                                                    },
                                                },
                                            },
                                        ],
                                    ],
                                    schema: yup.object({ rows: yup.array() }),
                                    submit: { call: 'saveLabels' },
                                },
                                {
                                    kind: 'upload',
                                    label: '上传',
                                    call: { call: 'upload' },
                                    check: (file) => (file.name.endsWith('.bin') ? undefined : '只收 bin 文件'),
                                },
                            ],
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            get: { get: '/api/pump/get', read: 'data' },
            readings: {
                get: '/api/pump/readings',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            labels: { get: '/api/pump/labels', read: 'data' },
            deleteLabel: { post: '/api/pump/label/delete' },
            saveLabels: { post: '/api/pump/labels/save' },
            upload: { post: '/api/pump/upload' },
        },
    },
});

const title = () => screen.findByRole('heading', { level: 1 }, { timeout: 20_000 });

describe('detail page concepts', () => {
    beforeEach(() => {
        labels = [
            { labelId: 1, key: 'room', value: 'A1' },
            { labelId: 2, key: 'rack', value: 'R7' },
        ];
        readingCalls = 0;
        failReadings = false;
        deleted.length = 0;
        held = Promise.resolve();
        mswServer.use(...handlers());
    });

    it('says the record is loading, falls back to the tab the scope names, and shows tabpanels and sub-tabs', async () => {
        let release: () => void = () => undefined;
        held = new Promise((resolve) => (release = resolve));
        renderDefinitions([pumps], '/pump/7?big=true');
        expect(await screen.findByText('水泵信息加载中…', {}, { timeout: 20_000 })).toBeInTheDocument();
        release();
        expect(await title()).toHaveTextContent('一号泵');
        expect(screen.getAllByRole('tabpanel')[0]).toHaveAccessibleName('更多');
        expect(screen.getByText('甲页')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '乙' }));
        await waitFor(() => expect(searchParam('sub')).toBe('b'));
        expect(screen.getByText('乙页')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '甲' }));
        await waitFor(() => expect(searchParam('sub')).toBeNull());
    });

    it('note sections; a list with 刷新, its failure words, and a dialog whose list sees the row and the page', async () => {
        failReadings = true;
        renderDefinitions([pumps], '/pump/7/info');
        await title();
        expect(screen.getByText('暂无订阅')).toBeInTheDocument();
        expect(screen.getByText('一号泵的订阅将在后续版本提供')).toBeInTheDocument();
        // The list's own words, as a toast and in place of the rows; the server's are not shown.
        await waitFor(() => expect(screen.getAllByText('未上报读数').length).toBeGreaterThanOrEqual(2), {
            timeout: 15_000,
        });
        expect(screen.getByText('上报后刷新查看')).toBeInTheDocument();
        expect(screen.queryByText('服务内部错误')).toBeNull();

        failReadings = false;
        const before = readingCalls;
        fireEvent.click(screen.getByRole('button', { name: '刷新读数' }));
        await waitFor(() => expect(readingCalls).toBe(before + 1));
        await waitFor(() =>
            expect(within(screen.getByRole('table', { name: '读数' })).getAllByRole('row')).toHaveLength(4),
        );

        const row = within(screen.getByRole('table', { name: '读数' })).getAllByRole('row')[2];
        fireEvent.click(within(row).getByRole('button', { name: '详情' }));
        const dialog = await screen.findByRole('dialog', { name: '读数 20' });
        fireEvent.click(await within(dialog).findByRole('tab', { name: '无' }));
        expect(await within(dialog).findByText('一号泵没有20的同类读数')).toBeInTheDocument();
        expect(searchParam('d_kind')).toBe('none');
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(searchParam('d_kind')).toBeNull());
    });

    it('a form starts from its load call; saved rows are deleted after a confirmation, new ones at once', async () => {
        renderDefinitions([pumps], '/pump/7/labels');
        await title();
        fireEvent.click(screen.getByRole('button', { name: '编辑标签' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑标签' });
        await waitFor(() => expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })).toHaveLength(2));
        expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })[0]).toHaveValue('room');

        fireEvent.click(within(dialog).getByRole('button', { name: '删除第1行' }));
        const ask = await screen.findByRole('dialog', { name: '提示' });
        expect(ask).toHaveTextContent('是否删除标签「room」？');
        fireEvent.click(within(ask).getByRole('button', { name: '删除' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        expect(deleted).toEqual(['1']);
        await waitFor(() => expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })).toHaveLength(1));

        fireEvent.click(within(dialog).getByRole('button', { name: '删除第1行' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '删除' }),
        );
        expect(await screen.findByText('删除失败')).toBeInTheDocument();
        expect(deleted).toEqual(['1', '2']);
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());
        expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })[0]).toHaveValue('rack');

        fireEvent.click(within(dialog).getByRole('button', { name: '添加' }));
        await waitFor(() => expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })).toHaveLength(2));
        fireEvent.click(within(dialog).getByRole('button', { name: '删除第2行' }));
        await waitFor(() => expect(within(dialog).getAllByRole('textbox', { name: /^Key/ })).toHaveLength(1));
        expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull();
        expect(deleted).toEqual(['1', '2']);
    });

    it("an upload's check refuses a file in its own words", async () => {
        renderDefinitions([pumps], '/pump/7/labels');
        await title();
        fireEvent.click(screen.getByRole('button', { name: '上传' }));
        const dialog = await screen.findByRole('dialog', { name: '上传' });
        fireEvent.change(within(dialog).getByLabelText('选择文件'), {
            target: { files: [new File(['x'], 'a.exe')] },
        });
        expect(await within(dialog).findByText('只收 bin 文件')).toBeInTheDocument();
    });
});
