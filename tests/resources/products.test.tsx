import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import {
    bodyRows,
    chooseOption,
    currentLocation,
    mswServer,
    ok,
    platformHandler,
    renderApp,
    searchParam,
    shellHandlers,
} from './helpers';

interface Product {
    productId: number;
    productName: string;
    productKey: string;
    nodeType: number;
    dataType: number;
    categoryName: string;
    networkName: string;
    createTime: string;
}

const product = (i: number, name = `产品${String(i).padStart(2, '0')}`): Product => ({
    productId: i,
    productName: name,
    productKey: `pk${String(i).padStart(9, '0')}`,
    nodeType: i % 2,
    dataType: 0,
    categoryName: '路灯照明',
    networkName: '以太网',
    createTime: '2025-03-01 10:00:00',
});

/** GET /api/product over an array, recording the params of each call. */
function productListHandler(rows: Product[], calls: URLSearchParams[] = []) {
    return http.get('*/api/product', ({ request }) => {
        const q = new URL(request.url).searchParams;
        calls.push(q);
        const page = Number(q.get('pageNumber'));
        const size = Number(q.get('pageSize'));
        const name = q.get('productName') ?? '';
        const matching = rows.filter((r) => r.productName.includes(name));
        return ok({ records: matching.slice((page - 1) * size, page * size), total: matching.length });
    });
}

const CATEGORY_TREE = [
    {
        id: 1,
        name: '智慧城市',
        children: [{ id: 11, name: '公共服务', children: [{ id: 111, name: '路灯照明' }] }],
    },
    { id: 2, name: '工业' },
];

function formHandlers(networkCalls: string[] = [], saves: URLSearchParams[] = []) {
    return [
        http.get('*/api/product/list-category', () => ok(CATEGORY_TREE)),
        http.get('*/api/project/listAll', () =>
            ok({ list: [{ code: 'P1', projectName: '示范园区', sceneName: '智慧办公' }] }),
        ),
        http.get('*/api/product/list-network', ({ request }) => {
            const type = new URL(request.url).searchParams.get('type') ?? '';
            networkCalls.push(type);
            return ok(
                type === '1'
                    ? [
                          { id: 11, name: 'Modbus' },
                          { id: 12, name: 'OPC UA' },
                      ]
                    : [
                          { id: 1, name: 'WiFi' },
                          { id: 5, name: '以太网' },
                      ],
            );
        }),
        http.post('*/api/product/save', async ({ request }) => {
            saves.push(new URLSearchParams(await request.text()));
            return HttpResponse.json({ code: 500 }, { status: 500 });
        }),
    ];
}

/** Opens the dialog once the list has answered (while loading, the toolbar's button is about to be replaced). */
async function openCreateDialog() {
    await waitFor(() => expect(screen.queryByRole('table') ?? screen.queryByText(/暂无产品/)).not.toBeNull());
    fireEvent.click(screen.getByRole('button', { name: '创建产品' }));
    return screen.findByRole('dialog', { name: '创建产品' });
}

const submit = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

describe('product list', () => {
    it('pages 10 at a time, offers exactly 5, 10 and 20 rows, and keeps the page in the URL', async () => {
        const calls: URLSearchParams[] = [];
        mswServer.use(
            ...shellHandlers(),
            productListHandler(
                Array.from({ length: 12 }, (_, i) => product(i + 1)),
                calls,
            ),
        );
        renderApp('/product');

        expect(await screen.findByText('产品01')).toBeInTheDocument();
        expect(bodyRows()).toHaveLength(10);
        expect(calls[0].get('pageNumber')).toBe('1');
        expect(calls[0].get('pageSize')).toBe('10');
        for (const header of [
            '产品名称',
            'ProductKey',
            '节点类型',
            '所属分类',
            '连网方式',
            '数据格式',
            '创建时间',
            '操作',
        ]) {
            expect(screen.getByRole('columnheader', { name: header })).toBeInTheDocument();
        }
        expect(within(bodyRows()[0]).getByText('网关')).toBeInTheDocument();
        expect(within(bodyRows()[1]).getByText('设备')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: /下一页|next page/i }));
        expect(await screen.findByText('产品11')).toBeInTheDocument();
        expect(bodyRows()).toHaveLength(2);
        expect(searchParam('page')).toBe('2');
        expect(calls.at(-1)?.get('pageNumber')).toBe('2');

        fireEvent.mouseDown(screen.getByRole('combobox', { name: '每页条数' }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['5 条/页', '10 条/页', '20 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '5 条/页' }));
        await waitFor(() => expect(calls.at(-1)?.get('pageSize')).toBe('5'));
        await waitFor(() => expect(bodyRows()).toHaveLength(5));
        expect(searchParam('perPage')).toBe('5');
    });

    it('links each row to its detail, its devices and its thing model', async () => {
        mswServer.use(...shellHandlers(), productListHandler([product(7)]));
        renderApp('/product');
        const row = (await screen.findByText('产品07')).closest('tr')!;
        expect(within(row).getByRole('link', { name: '查看' })).toHaveAttribute(
            'href',
            '/productDetail/view?productId=7',
        );
        expect(within(row).getByRole('link', { name: '管理设备' })).toHaveAttribute('href', '/devices?pk=pk000000007');
        expect(within(row).getByRole('link', { name: '物模型定义' })).toHaveAttribute(
            'href',
            '/productDetail/function?productId=7',
        );
    });

    it('searches by product name', async () => {
        const calls: URLSearchParams[] = [];
        const rows = [product(1, '温度传感器'), product(2, '智能电表'), product(3, '温湿度计')];
        mswServer.use(...shellHandlers(), productListHandler(rows, calls));
        renderApp('/product');
        expect(await screen.findByText('智能电表')).toBeInTheDocument();

        await userEvent.type(screen.getByPlaceholderText('请输入产品名称'), '温');
        await waitFor(() => expect(screen.queryByText('智能电表')).not.toBeInTheDocument());
        expect(screen.getByText('温度传感器')).toBeInTheDocument();
        expect(screen.getByText('温湿度计')).toBeInTheDocument();
        expect(calls.at(-1)?.get('productName')).toBe('温');
        expect(searchParam('q')).toBe('温');
    });
});

describe('product show', () => {
    it('describes one product from GET /api/product/detail', async () => {
        const calls: string[] = [];
        mswServer.use(
            ...shellHandlers(),
            http.get('*/api/product/detail', ({ request }) => {
                calls.push(new URL(request.url).searchParams.get('productId') ?? '');
                return ok({
                    ...product(8, '网关产品'),
                    nodeType: 1,
                    gatewayType: 0,
                    projectName: '示范园区',
                    remark: '描述',
                });
            }),
        );
        renderApp('/product/8/show');
        const name = await screen.findByText('网关产品');
        const list = name.closest('dl')!;
        const valueOf = (label: string) => within(list).getByText(label).nextElementSibling;
        expect(valueOf('产品名称')).toHaveTextContent('网关产品');
        expect(valueOf('节点类型')).toHaveTextContent('网关');
        expect(valueOf('所属项目')).toHaveTextContent('示范园区');
        expect(valueOf('产品描述')).toHaveTextContent('描述');
        expect(calls).toContain('8');
    });
});

describe('product create dialog', () => {
    it('says what is wrong with the name and asks for a category, and sends nothing', async () => {
        const saves: URLSearchParams[] = [];
        mswServer.use(...shellHandlers(), productListHandler([]), ...formHandlers([], saves));
        renderApp('/product');
        const dialog = await openCreateDialog();
        const name = within(dialog).getByLabelText(/产品名称/);

        submit(dialog);
        expect(await within(dialog).findByText('产品名称不能为空')).toBeInTheDocument();
        expect(within(dialog).getByText('请选择所属分类')).toBeInTheDocument();

        await userEvent.type(name, 'abc');
        submit(dialog);
        expect(await within(dialog).findByText('长度限制4~30，中文算2位')).toBeInTheDocument();

        await userEvent.clear(name);
        await userEvent.type(name, 'ab-cd');
        submit(dialog);
        expect(await within(dialog).findByText('支持中文、英文字母、数字和下划线')).toBeInTheDocument();

        // Chinese counts as 2: two characters are long enough.
        await userEvent.clear(name);
        await userEvent.type(name, '电表');
        submit(dialog);
        await waitFor(() => expect(within(dialog).queryByText('长度限制4~30，中文算2位')).not.toBeInTheDocument());
        expect(within(dialog).queryByText('支持中文、英文字母、数字和下划线')).not.toBeInTheDocument();
        expect(within(dialog).getByText('请选择所属分类')).toBeInTheDocument();
        expect(saves).toHaveLength(0);
    });

    it('hides the gateway question for a gateway, relabels the network field and reloads its options', async () => {
        const networkCalls: string[] = [];
        mswServer.use(...shellHandlers(), productListHandler([]), ...formHandlers(networkCalls));
        renderApp('/product');
        const dialog = await openCreateDialog();

        const network = await within(dialog).findByRole('combobox', { name: /连网方式/ });
        await waitFor(() => expect(network).toHaveTextContent('以太网'));
        expect(networkCalls).toEqual(['0']);

        fireEvent.click(within(dialog).getByRole('radio', { name: '是' }));
        const protocol = await within(dialog).findByRole('combobox', { name: /网关接入协议/ });
        await waitFor(() => expect(networkCalls).toEqual(['0', '1']));
        await chooseOption(protocol, 'Modbus');
        expect(protocol).toHaveTextContent('Modbus');

        fireEvent.click(within(dialog).getByRole('radio', { name: '网关' }));
        await waitFor(() => expect(within(dialog).queryByText('是否接入网关')).not.toBeInTheDocument());
        expect(within(dialog).queryByRole('radio', { name: '是' })).not.toBeInTheDocument();
        const back = await within(dialog).findByRole('combobox', { name: /连网方式/ });
        // gatewayType went back to 0, so the connection methods are asked for again and Modbus is no longer one.
        await waitFor(() => expect(back).toHaveTextContent('以太网'));
        fireEvent.mouseDown(back);
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['WiFi', '以太网']);

        fireEvent.click(within(listbox).getByRole('option', { name: 'WiFi' }));
        fireEvent.click(within(dialog).getByRole('radio', { name: '设备' }));
        expect(await within(dialog).findByRole('radio', { name: '否' })).toBeChecked();
    });

    it('says 系统错误 when the server fails without a message', async () => {
        const saves: URLSearchParams[] = [];
        mswServer.use(...shellHandlers(), productListHandler([]), ...formHandlers([], saves));
        renderApp('/product');
        const dialog = await openCreateDialog();
        await userEvent.type(within(dialog).getByLabelText(/产品名称/), 'meter_01');
        await chooseOption(within(within(dialog).getByTestId('cascader-categoryId')).getByRole('combobox'), '工业');
        submit(dialog);
        expect(await screen.findByText('系统错误')).toBeInTheDocument();
        expect(saves).toHaveLength(1);
        expect(screen.getByRole('dialog', { name: '创建产品' })).toBeInTheDocument();
    });
});

describe('products against the platform', () => {
    let platform: TestServer;
    beforeAll(async () => {
        platform = await createTestServer({ seed: false });
    });
    afterAll(() => platform.close());
    beforeEach(async () => {
        mswServer.use(platformHandler(platform));
        const { records } = (await (await platform.fetch('/api/product?pageNumber=1&pageSize=100')).json()).data;
        for (const r of records) await platform.fetch(`/api/product?productId=${r.productId}`, { method: 'DELETE' });
    });

    async function createViaApi(server: TestServer, productName: string, categoryId: number) {
        const body = new URLSearchParams({
            productName,
            nodeType: '0',
            gatewayType: '0',
            categoryId: String(categoryId),
            networkType: '5',
            dataType: '0',
        });
        const answer = await server.fetch('/api/product/save', { method: 'POST', body });
        expect((await answer.json()).code).toBe(200);
    }

    async function leafCategory(server: TestServer): Promise<number> {
        const tree = (await (await server.fetch('/api/product/list-category')).json()).data;
        let node = tree[0];
        while (node.children?.length) node = node.children[0];
        return node.id;
    }

    it('creates a product through the dialog: 添加成功, the row appears, the last category level is sent', async () => {
        renderApp('/product');
        expect(await screen.findByText(/暂无产品/)).toBeInTheDocument();

        const dialog = await openCreateDialog();
        await userEvent.type(within(dialog).getByLabelText(/产品名称/), '智能路灯控制器');
        const cascader = within(dialog).getByTestId('cascader-categoryId');
        await chooseOption(await within(cascader).findByRole('combobox'), '智慧城市');
        await chooseOption(within(cascader).getAllByRole('combobox')[1], '公共服务');
        await chooseOption(within(cascader).getAllByRole('combobox')[2], '路灯照明');
        await waitFor(() =>
            expect(within(dialog).getByRole('combobox', { name: /连网方式/ })).toHaveTextContent('以太网'),
        );
        await userEvent.type(within(dialog).getByLabelText('产品描述'), '路灯单灯控制');
        submit(dialog);

        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '创建产品' })).not.toBeInTheDocument());
        const row = (await screen.findByText('智能路灯控制器')).closest('tr')!;
        expect(within(row).getByText('路灯照明')).toBeInTheDocument();
        expect(within(row).getByText('以太网')).toBeInTheDocument();

        const saved = (await (await platform.fetch('/api/product?pageNumber=1&pageSize=10')).json()).data.records;
        expect(saved).toHaveLength(1);
        expect(saved[0]).toMatchObject({ productName: '智能路灯控制器', nodeType: 0, gatewayType: 0, networkType: 5 });
        expect(saved[0].categoryId).toBe(await leafCategory(platform));
    }, 60_000);

    it('shows the server message when the name is taken', async () => {
        await createViaApi(platform, '已有产品', await leafCategory(platform));
        renderApp('/product');
        const dialog = await openCreateDialog();
        await userEvent.type(within(dialog).getByLabelText(/产品名称/), '已有产品');
        const cascader = within(dialog).getByTestId('cascader-categoryId');
        await chooseOption(await within(cascader).findByRole('combobox'), '智慧城市');
        submit(dialog);
        expect(await screen.findByText('产品名称已存在')).toBeInTheDocument();
    }, 60_000);

    it('deletes after confirmation and steps back to page 1 when the only row of page 2 goes', async () => {
        const category = await leafCategory(platform);
        for (let i = 1; i <= 11; i++) await createViaApi(platform, `批量产品${String(i).padStart(2, '0')}`, category);

        renderApp('/product?page=2&perPage=10');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        // Newest first: page 2 holds the first one created.
        const row = screen.getByText('批量产品01').closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));

        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(within(confirm).getByText('是否删除此产品?')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(searchParam('page')).toBe('1'));
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        expect(screen.getByText('批量产品11')).toBeInTheDocument();
        expect(screen.queryByText('批量产品01')).not.toBeInTheDocument();
        expect(currentLocation.pathname).toBe('/product');
        const left = (await (await platform.fetch('/api/product?pageNumber=1&pageSize=20')).json()).data.total;
        expect(left).toBe(10);
    }, 60_000);
});
