import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as yup from 'yup';
import { defineResource, type AnyPaths } from '../../src/engine';
import { currentLocation, fail, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * Engine concepts the declared thing model needed, on one made-up entity (a toolbox): lists of rows made in the
 * browser (`rows`, from the record or from a call's whole answer), `map`, `label`, the `switch` section, page loads
 * that wait for the record, `ariaLabel`, `errorField`, `CallRef.each`, `DownloadAction.saveAs`, upload `parse` /
 * `preview` / `submitLabel`, picker `keepRows` / `disabled` / `empty`, input `widgetProps`.
 */

const calls: Array<{ path: string; params: Record<string, string> }> = [];
const saved: Array<Record<string, unknown>> = [];
let tools: Array<{ toolId: number; code: string; name: string; unit: string }> = [];

const query = (url: string) => Object.fromEntries(new URL(url).searchParams.entries());

const handlers = () => [
    http.get('*/api/box/detail', ({ request }) => {
        calls.push({ path: 'detail', params: query(request.url) });
        return ok({ boxId: 7, boxName: '一号工具箱', members: [{ who: '张工' }, { who: '李工' }] });
    }),
    http.get('*/api/box/units', ({ request }) => {
        calls.push({ path: 'units', params: query(request.url) });
        return ok([{ symbol: 'pc', name: '件' }]);
    }),
    http.get('*/api/box/groups', ({ request }) => {
        calls.push({ path: 'groups', params: query(request.url) });
        return ok([
            { name: '手动', items: [{ code: 'H1', label: '扳手' }] },
            { name: '电动', items: [{ code: 'E1', label: '电钻' }] },
        ]);
    }),
    http.get('*/api/box/tools', ({ request }) => {
        calls.push({ path: 'tools', params: query(request.url) });
        return ok({ records: tools, total: tools.length });
    }),
    http.get('*/api/box/catalog', () =>
        ok([
            { code: 'C1', name: '卷尺' },
            { code: 'C2', name: '锤子' },
            { code: 'H1', name: '扳手' },
            { code: 'BAD', name: '坏尺' },
        ]),
    ),
    http.post('*/api/box/tool/save', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        if (body.code === 'DUP') return fail('编码已存在');
        if (body.code === 'BAD') return fail('不能添加');
        saved.push(body);
        return ok({ ...body, toolId: saved.length + 100 });
    }),
    http.post('*/api/box/import', async ({ request }) => {
        saved.push((await request.json()) as Record<string, unknown>);
        return ok(null);
    }),
    http.get('*/api/box/export', () => ok({ tools: ['H1'] })),
];

const boxes = defineResource<AnyPaths>({
    name: 'boxes',
    label: '工具箱',
    fields: {
        code: { label: '编码' },
        name: { label: '名称' },
        unitName: { label: '单位' },
        who: { label: '成员' },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/box/:boxId/*',
            title: '工具箱',
            record: { call: 'detail', params: ({ route }) => ({ boxId: route.boxId }) },
            load: { units: { call: 'units', params: ({ record }) => ({ boxId: record.boxId }) } },
            tabs: [
                {
                    key: 'groups',
                    label: '分类',
                    sections: [
                        {
                            kind: 'switch',
                            label: '工具类别',
                            param: 'kind',
                            options: ['手动', '电动'].map((name, i) => ({
                                key: i === 0 ? 'hand' : 'power',
                                label: name,
                                sections: [
                                    {
                                        kind: 'list',
                                        list: {
                                            source: { call: 'groups' },
                                            rows: (_scope, answer) =>
                                                (answer as Array<{ name: string; items: [] }>).find(
                                                    (g) => g.name === name,
                                                )?.items,
                                            columns: [['label', { label: '工具' }], 'code'],
                                            rowId: 'code',
                                            label: name,
                                        },
                                    },
                                ],
                            })),
                        },
                        {
                            kind: 'list',
                            list: { rows: ({ record }) => record.members as [], columns: ['who'], label: '成员' },
                        },
                    ],
                },
                {
                    key: 'tools',
                    label: '工具',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'tools', params: ({ record }) => ({ boxId: record.boxId }) },
                                columns: ['code', 'name', 'unitName'],
                                rowId: 'toolId',
                                label: '工具列表',
                                map: (row, { data }) => ({
                                    ...row,
                                    unitName: (data?.units as Array<{ symbol: string; name: string }>)?.find(
                                        (u) => u.symbol === row.unit,
                                    )?.name,
                                }),
                                rowActions: [
                                    {
                                        kind: 'form',
                                        label: '编辑',
                                        ariaLabel: ({ record }) => `编辑 ${String(record.code)}`,
                                        fields: ['code'],
                                        schema: yup.object({ code: yup.string().required('请输入编码') }),
                                        defaults: ({ record }) => ({ code: record.code }),
                                        submit: { call: 'save', params: ({ values }) => ({ ...values }) },
                                        errorField: (m) => (m.startsWith('编码') ? 'code' : undefined),
                                        success: '已保存',
                                    },
                                ],
                                toolbar: [
                                    {
                                        kind: 'form',
                                        label: '从目录添加',
                                        fields: [
                                            [
                                                'picked',
                                                {
                                                    label: '目录',
                                                    input: 'picker',
                                                    picker: {
                                                        source: { call: 'catalog' },
                                                        columns: ['name'],
                                                        rowId: 'code',
                                                        keepRows: true,
                                                        disabled: (row) => (row.code === 'H1' ? '已在箱中' : false),
                                                    },
                                                },
                                            ],
                                        ],
                                        submit: {
                                            call: 'save',
                                            each: ({ values }) =>
                                                (values?.picked as Array<Record<string, unknown>>).map((r) => ({
                                                    code: r.code,
                                                    name: r.name,
                                                })),
                                            eachName: (p) => String(p.name),
                                        },
                                        success: (answer) => `已添加 ${(answer as unknown[]).length} 件`,
                                    },
                                    {
                                        kind: 'upload',
                                        label: '导入',
                                        call: {
                                            call: 'import',
                                            params: ({ values }) => ({ boxId: 7, list: values?.list }),
                                        },
                                        fileField: 'list',
                                        parse: (text) => {
                                            try {
                                                return { value: JSON.parse(text) as unknown };
                                            } catch {
                                                return { error: '不是 JSON' };
                                            }
                                        },
                                        preview: (value) => `将导入 ${(value as unknown[]).length} 件`,
                                        submitLabel: '确认导入',
                                        success: '导入成功',
                                    },
                                    {
                                        kind: 'download',
                                        label: '导出',
                                        call: { call: 'export' },
                                        saveAs: ({ record }) => `box-${String(record.boxId)}.json`,
                                    },
                                ],
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            detail: { get: '/api/box/detail', read: 'data' },
            units: { get: '/api/box/units', read: 'data' },
            groups: { get: '/api/box/groups', read: 'data' },
            tools: { get: '/api/box/tools', read: 'data.records', total: 'data.total' },
            catalog: { get: '/api/box/catalog', read: 'data', transform: (r) => ({ ...r, id: r.code }) },
            save: { post: '/api/box/tool/save', body: 'json', read: 'data' },
            import: { post: '/api/box/import', body: 'json' },
            export: { get: '/api/box/export', read: 'data' },
        },
    },
});

beforeEach(() => {
    calls.length = 0;
    saved.length = 0;
    tools = [
        { toolId: 1, code: 'A1', name: '扳手', unit: 'pc' },
        { toolId: 2, code: 'A2', name: '螺丝刀', unit: 'pc' },
    ];
    mswServer.use(...handlers());
});

describe('rows, switch and the thing-model concepts', { timeout: 30_000 }, () => {
    it('switches between lists made from one answer, kept in the URL, and lists rows of the record', async () => {
        renderDefinitions([boxes], '/box/7/groups');
        const hand = await screen.findByRole('table', { name: '手动' });
        expect(within(hand).getByText('扳手')).toBeInTheDocument();
        expect(within(screen.getByRole('table', { name: '成员' })).getAllByRole('row')).toHaveLength(3);
        fireEvent.click(screen.getByRole('radio', { name: '电动' }));
        const power = await screen.findByRole('table', { name: '电动' });
        expect(within(power).getByText('电钻')).toBeInTheDocument();
        expect(screen.queryByRole('table', { name: '手动' })).not.toBeInTheDocument();
        expect(searchParam('kind')).toBe('power');
        // The page's load waited for the record: its params read it.
        expect(calls.filter((c) => c.path === 'units').map((c) => c.params)).toEqual([{ boxId: '7' }]);
    });

    it('shapes rows with a page load, names row buttons, and says a field failure under its input', async () => {
        renderDefinitions([boxes], '/box/7/tools');
        const table = await screen.findByRole('table', { name: '工具列表' });
        await waitFor(() => expect(within(table).getAllByText('件')).toHaveLength(2));
        fireEvent.click(within(table).getByRole('button', { name: '编辑 A2' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑' });
        const code = within(dialog).getByLabelText('编码');
        fireEvent.change(code, { target: { value: 'DUP' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('编码已存在')).toBeInTheDocument();
        expect(saved).toEqual([]);
        expect(currentLocation.pathname).toBe('/box/7/tools');
    });

    it('runs a call once per picked row, keeping whole rows and refusing disabled ones', async () => {
        renderDefinitions([boxes], '/box/7/tools');
        await screen.findByRole('table', { name: '工具列表' });
        fireEvent.click(screen.getByRole('button', { name: '从目录添加' }));
        const dialog = await screen.findByRole('dialog', { name: '从目录添加' });
        expect(await within(dialog).findByRole('checkbox', { name: '选择 H1' })).toBeDisabled();
        expect(within(dialog).getByText('已在箱中')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '选择 C1' }));
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '选择 C2' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已添加 2 件')).toBeInTheDocument();
        expect(saved).toEqual([
            { code: 'C1', name: '卷尺' },
            { code: 'C2', name: '锤子' },
        ]);
    });

    it('names each item that failed, keeps the dialog open and reloads what the others changed', async () => {
        renderDefinitions([boxes], '/box/7/tools');
        await screen.findByRole('table', { name: '工具列表' });
        const before = calls.filter((c) => c.path === 'tools').length;
        fireEvent.click(screen.getByRole('button', { name: '从目录添加' }));
        const dialog = await screen.findByRole('dialog', { name: '从目录添加' });
        fireEvent.click(await within(dialog).findByRole('checkbox', { name: '选择 C1' }));
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '选择 BAD' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('坏尺：不能添加')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '从目录添加' })).toBeInTheDocument();
        expect(saved).toEqual([{ code: 'C1', name: '卷尺' }]);
        await waitFor(() => expect(calls.filter((c) => c.path === 'tools').length).toBeGreaterThan(before));
    });

    it('reads an upload in the browser, previews it, and sends what it read', async () => {
        renderDefinitions([boxes], '/box/7/tools');
        await screen.findByRole('table', { name: '工具列表' });
        fireEvent.click(screen.getByRole('button', { name: '导入' }));
        const dialog = await screen.findByRole('dialog', { name: '导入' });
        const input = dialog.querySelector<HTMLInputElement>('input[type=file]')!;
        const submit = within(dialog).getByRole('button', { name: '确认导入' });
        fireEvent.change(input, { target: { files: [new File(['{oops'], 'a.json')] } });
        expect(await within(dialog).findByText('不是 JSON')).toBeInTheDocument();
        expect(submit).toBeDisabled();
        fireEvent.change(input, { target: { files: [new File(['["x","y"]'], 'b.json')] } });
        expect(await within(dialog).findByText('将导入 2 件')).toBeInTheDocument();
        await waitFor(() => expect(submit).toBeEnabled());
        fireEvent.click(submit);
        expect(await screen.findByText('导入成功')).toBeInTheDocument();
        expect(saved).toEqual([{ boxId: 7, list: ['x', 'y'] }]);
    });

    describe('saveAs', () => {
        const blobs: Blob[] = [];
        const names: string[] = [];
        beforeEach(() => {
            blobs.length = 0;
            names.length = 0;
            URL.createObjectURL = vi.fn((blob: Blob) => {
                blobs.push(blob);
                return 'blob:box';
            }) as typeof URL.createObjectURL;
            URL.revokeObjectURL = vi.fn();
            vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
                names.push(this.download);
            });
        });
        afterEach(() => vi.restoreAllMocks());

        it("saves a call's answer as a JSON file of the declared name", async () => {
            renderDefinitions([boxes], '/box/7/tools');
            await screen.findByRole('table', { name: '工具列表' });
            fireEvent.click(screen.getByRole('button', { name: '导出' }));
            await waitFor(() => expect(names).toEqual(['box-7.json']));
            const text = await new Promise<string>((resolve) => {
                const reader = new FileReader();
                reader.onload = () => resolve(String(reader.result));
                reader.readAsText(blobs[0]);
            });
            expect(JSON.parse(text)).toEqual({ tools: ['H1'] });
        });
    });
});
