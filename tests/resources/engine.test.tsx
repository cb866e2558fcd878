import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useShowController } from 'react-admin';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, useDefinition } from '../../src/engine';
import {
    bodyRows,
    chooseOption,
    currentLocation,
    mswServer,
    ok,
    fail,
    renderDefinitions,
    searchParam,
} from './helpers';

interface Widget {
    id: number;
    name: string;
    categoryId?: number;
}

let widgets: Widget[] = [];
let saves: URLSearchParams[] = [];

const TREE = [
    {
        id: 1,
        name: '传感器',
        children: [
            { id: 12, name: '温度传感器' },
            { id: 13, name: '湿度传感器' },
        ],
    },
    { id: 2, name: '执行器' },
];

/** Shown instead of the generated show view; it still reads its record through the definition's api. */
function WidgetCard() {
    const definition = useDefinition();
    const { record } = useShowController();
    return <p>{record ? `${definition.label}卡片：${record.name}` : '加载中'}</p>;
}

const widgetResource = defineResource<AnyPaths>({
    name: 'widgets',
    label: '部件',
    path: 'widget',
    fields: {
        id: { label: '编号', type: 'number', readOnly: true },
        name: { label: '名称', required: true },
        categoryId: {
            label: '分类',
            type: 'cascader',
            views: ['create'],
            required: true,
            choicesFrom: { call: 'tree' },
        },
    },
    schema: yup.object({
        name: yup.string().trim().required('请输入名称'),
        categoryId: yup.number().typeError('请选择分类').required('请选择分类'),
    }),
    editSchema: yup.object({ name: yup.string().trim().required('请输入名称') }),
    list: { perPage: 10, perPageOptions: [3, 10, 25], deleteConfirm: '确定删除这个部件？', edit: true },
    messages: { created: '部件已创建', createFailed: '部件创建失败', deleted: '部件已删除', updated: '部件已修改' },
    views: { show: WidgetCard },
    api: {
        success: 'code200',
        getList: {
            get: '/api/widget/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/widget/get', params: (r) => ({ id: r.id }), read: 'data' },
        create: { post: '/api/widget/save', read: 'data' },
        update: { post: '/api/widget/update', read: 'data' },
        delete: { delete: '/api/widget', params: (r) => ({ id: r.id }) },
        custom: { tree: { get: '/api/widget/tree', read: 'data' } },
    },
});

function widgetHandlers(options: { saveAnswer?: () => Response; updateAnswer?: () => Response } = {}) {
    return [
        http.get('*/api/widget/list', ({ request }) => {
            const q = new URL(request.url).searchParams;
            const page = Number(q.get('pageNumber'));
            const size = Number(q.get('pageSize'));
            return ok({ records: widgets.slice((page - 1) * size, page * size), total: widgets.length });
        }),
        http.get('*/api/widget/get', ({ request }) => {
            const id = Number(new URL(request.url).searchParams.get('id'));
            const widget = widgets.find((w) => w.id === id);
            return widget ? ok(widget) : fail('部件不存在', 404);
        }),
        http.get('*/api/widget/tree', () => ok(TREE)),
        http.post('*/api/widget/save', async ({ request }) => {
            const form = new URLSearchParams(await request.text());
            saves.push(form);
            if (options.saveAnswer) return options.saveAnswer();
            const widget = {
                id: widgets.length + 100,
                name: form.get('name') ?? '',
                categoryId: Number(form.get('categoryId')),
            };
            widgets.push(widget);
            return ok(widget);
        }),
        http.post('*/api/widget/update', () => options.updateAnswer?.() ?? fail('未实现')),
        http.delete('*/api/widget', ({ request }) => {
            const id = Number(new URL(request.url).searchParams.get('id'));
            widgets = widgets.filter((w) => w.id !== id);
            return ok(null);
        }),
    ];
}

const many = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `部件${String(i + 1).padStart(2, '0')}` }));

async function deleteRow(name: string) {
    const row = (await screen.findByText(name)).closest('tr')!;
    fireEvent.click(within(row).getByRole('button', { name: '删除' }));
    const confirm = await screen.findByRole('dialog', { name: '提示' });
    expect(within(confirm).getByText('确定删除这个部件？')).toBeInTheDocument();
    fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
    expect(await screen.findByText('部件已删除')).toBeInTheDocument();
}

beforeEach(() => {
    widgets = [];
    saves = [];
});

describe('generated list', () => {
    it('steps back one page (3 → 2, not 1) when the last row of a later page is deleted', async () => {
        widgets = many(21);
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget?page=3&perPage=10');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        await deleteRow('部件21');
        await waitFor(() => expect(searchParam('page')).toBe('2'));
        expect(await screen.findByText('部件11')).toBeInTheDocument();
        expect(screen.getByText('部件20')).toBeInTheDocument();
        expect(bodyRows()).toHaveLength(10);
    });

    it('stays on the page when rows remain on it', async () => {
        widgets = many(21);
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget?page=2&perPage=10');
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        await deleteRow('部件15');
        await waitFor(() => expect(screen.queryByText('部件15')).not.toBeInTheDocument());
        expect(await screen.findByText('部件21')).toBeInTheDocument();
        expect(searchParam('page')).toBe('2');
    });

    it('offers exactly the rows-per-page options the definition gives', async () => {
        widgets = many(4);
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget');
        await waitFor(() => expect(bodyRows()).toHaveLength(4));
        fireEvent.mouseDown(screen.getByRole('combobox', { name: '每页条数' }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['3 条/页', '10 条/页', '25 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '3 条/页' }));
        await waitFor(() => expect(bodyRows()).toHaveLength(3));
    });

    it('says 暂无数据 when empty and offers the create page', async () => {
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget');
        expect(await screen.findByText('暂无数据')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('link', { name: '新建' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/widget/create'));
    });
});

describe('generated create and edit', () => {
    it('cascader: asks for a choice, then sends the id of the last level chosen', async () => {
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget/create');
        const save = await screen.findByRole('button', { name: '保存' });
        fireEvent.click(save);
        expect(await screen.findByText('请输入名称')).toBeInTheDocument();
        expect(screen.getByText('请选择分类')).toBeInTheDocument();

        await userEvent.type(screen.getByLabelText(/名称/), '一号温度计');
        const cascader = screen.getByTestId('cascader-categoryId');
        await chooseOption(within(cascader).getByRole('combobox'), '传感器');
        await waitFor(() => expect(within(cascader).getAllByRole('combobox')).toHaveLength(2));
        await chooseOption(within(cascader).getAllByRole('combobox')[1], '湿度传感器');
        fireEvent.click(save);

        expect(await screen.findByText('部件已创建')).toBeInTheDocument();
        expect(saves).toHaveLength(1);
        expect(saves[0].get('name')).toBe('一号温度计');
        expect(saves[0].get('categoryId')).toBe('13');
        await waitFor(() => expect(currentLocation.pathname).toBe('/widget'));
    });

    it('a level with no children ends the chain and is what is sent', async () => {
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget/create');
        await userEvent.type(await screen.findByLabelText(/名称/), '阀门');
        const cascader = screen.getByTestId('cascader-categoryId');
        await chooseOption(within(cascader).getByRole('combobox'), '执行器');
        expect(within(cascader).getAllByRole('combobox')).toHaveLength(1);
        fireEvent.click(screen.getByRole('button', { name: '保存' }));
        await waitFor(() => expect(saves).toHaveLength(1));
        expect(saves[0].get('categoryId')).toBe('2');
    });

    it('disables the save button while the server is answering, and enables it again after', async () => {
        let answer: (r: Response) => void = () => undefined;
        const pending = new Promise<Response>((resolve) => (answer = resolve));
        mswServer.use(...widgetHandlers({ saveAnswer: () => pending as unknown as Response }));
        renderDefinitions([widgetResource], '/widget/create');
        await userEvent.type(await screen.findByLabelText(/名称/), '慢部件');
        await chooseOption(within(screen.getByTestId('cascader-categoryId')).getByRole('combobox'), '执行器');
        const save = screen.getByRole('button', { name: '保存' });
        expect(save).toBeEnabled();
        fireEvent.click(save);
        await waitFor(() => expect(saves).toHaveLength(1));
        await waitFor(() => expect(screen.getByRole('button', { name: '保存' })).toBeDisabled());
        answer(fail('部件名称已存在'));
        expect(await screen.findByText('部件名称已存在')).toBeInTheDocument();
        await waitFor(() => expect(screen.getByRole('button', { name: '保存' })).toBeEnabled());
    });

    it("shows the definition's failure message when the server gives none", async () => {
        mswServer.use(...widgetHandlers({ saveAnswer: () => HttpResponse.json({ code: 500 }, { status: 500 }) }));
        renderDefinitions([widgetResource], '/widget/create');
        await userEvent.type(await screen.findByLabelText(/名称/), '坏部件');
        await chooseOption(within(screen.getByTestId('cascader-categoryId')).getByRole('combobox'), '执行器');
        fireEvent.click(screen.getByRole('button', { name: '保存' }));
        expect(await screen.findByText('部件创建失败')).toBeInTheDocument();
        expect(currentLocation.pathname).toBe('/widget/create');
    });

    it('edit is pessimistic: a refusal shows the server message and the form stays', async () => {
        widgets = [{ id: 5, name: '旧名称' }];
        mswServer.use(...widgetHandlers({ updateAnswer: () => fail('名称已存在') }));
        renderDefinitions([widgetResource], '/widget/5');
        const name = await screen.findByDisplayValue('旧名称');
        await userEvent.clear(name);
        await userEvent.type(name, '重名');
        fireEvent.click(screen.getByRole('button', { name: '保存' }));
        expect(await screen.findByText('名称已存在')).toBeInTheDocument();
        expect(screen.queryByText('部件已修改')).not.toBeInTheDocument();
        expect(currentLocation.pathname).toBe('/widget/5');
        expect(screen.getByDisplayValue('重名')).toBeInTheDocument();
    });
});

describe('view override', () => {
    it('renders the definition’s own show view, fed by the definition’s getOne', async () => {
        widgets = [{ id: 7, name: '七号部件' }];
        mswServer.use(...widgetHandlers());
        renderDefinitions([widgetResource], '/widget/7/show');
        expect(await screen.findByText('部件卡片：七号部件')).toBeInTheDocument();
    });
});
