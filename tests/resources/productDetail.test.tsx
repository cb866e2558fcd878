import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, mswServer, platformHandler, renderApp } from './helpers';

// The real console (App, registry, layout) against the in-process reference server: page, data provider,
// products registration of /productDetail/* and the server's routes are all under test.
let platform: TestServer;

interface ProductRow {
    productId: number;
    productName: string;
    productKey: string;
    nodeType: number;
    categoryName: string;
    networkName: string;
    projectName: string | null;
    remark: string | null;
    createTime: string;
}

async function api<T>(path: string, init?: RequestInit): Promise<T> {
    const body = await (await platform.fetch(path, init)).json();
    expect(body.code, JSON.stringify(body)).toBe(200);
    return body.data as T;
}

let product: ProductRow;

beforeAll(async () => {
    platform = await createTestServer({ seed: true });
    // Compile the lazily loaded page once here, not inside the first test's time budget.
    await Promise.all([import('../../src/engine/page'), import('../../src/widgets/thingModel/DataTypeSpec')]);
    const page = await api<{ records: ProductRow[] }>('/api/product?pageNumber=1&pageSize=100');
    const first = page.records.find((p) => p.projectName && p.remark) ?? page.records[0];
    product = await api<ProductRow>(`/api/product/detail?productId=${first.productId}`);
});

afterAll(async () => {
    await platform?.close();
});

// setup.ts resets msw handlers after each test.
beforeEach(() => mswServer.use(platformHandler(platform)));

const renderAt = (url: string) => renderApp(url);

/** The page is a lazy chunk: its first load in a run compiles every module under it, so allow time. */
const waitForHeading = (name: string) => screen.findByRole('heading', { name }, { timeout: 15_000 });

/** A value of the 产品信息 section (the header above it shows ProductKey too). */
const field = (label: string) =>
    within(screen.getByRole('region', { name: '产品信息' })).getByLabelText(label, { selector: 'dd' });

describe('product detail', { timeout: 60_000 }, () => {
    it('shows every field of the product on the view tab, with breadcrumb and header', async () => {
        renderAt(`/productDetail/view?productId=${product.productId}`);
        await waitForHeading(product.productName);
        const breadcrumb = screen.getByRole('navigation', { name: 'breadcrumb' });
        expect(within(breadcrumb).getByRole('link', { name: '产品管理' })).toHaveAttribute('href', '/product');
        expect(within(breadcrumb).getByText('产品详情')).toBeInTheDocument();
        const header = screen.getByRole('region', { name: product.productName });
        expect(within(header).getByText(product.productKey)).toBeInTheDocument();
        expect(within(header).getByRole('button', { name: '复制 ProductKey' })).toBeInTheDocument();
        expect(screen.getByRole('tab', { name: '产品信息', selected: true })).toBeInTheDocument();
        expect(field('产品名称')).toHaveTextContent(product.productName);
        expect(field('ProductKey')).toHaveTextContent(product.productKey);
        expect(field('节点类型')).toHaveTextContent(product.nodeType === 1 ? '网关' : '设备');
        expect(field('所属分类')).toHaveTextContent(product.categoryName);
        expect(screen.getByLabelText(/连网方式|网关接入协议/, { selector: 'dd' })).toHaveTextContent(
            product.networkName,
        );
        expect(field('数据格式')).toHaveTextContent(/标准数据格式（JSON）|透传\/自定义/);
        expect(field('所属项目')).toHaveTextContent(product.projectName!);
        expect(field('描述')).toHaveTextContent(product.remark!);
        expect(field('创建时间')).toHaveTextContent(product.createTime);
    });

    it('opens the product by the numeric path form too', async () => {
        renderAt(`/productDetail/${product.productId}`);
        await waitForHeading(product.productName);
        expect(screen.getByRole('tab', { name: '产品信息', selected: true })).toBeInTheDocument();
    });

    it('refuses a bad name with the platform rule and saves a good one', async () => {
        const user = userEvent.setup({ delay: null });
        renderAt(`/productDetail/view?productId=${product.productId}`);
        await waitForHeading(product.productName);
        await user.click(screen.getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑产品' });
        const name = within(dialog).getByLabelText(/产品名称/);

        await user.clear(name);
        await user.type(name, '灯');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('长度限制4~30，中文算2位')).toBeInTheDocument();
        // Nothing reached the server.
        expect((await api<ProductRow>(`/api/product/detail?productId=${product.productId}`)).productName).toBe(
            product.productName,
        );

        const renamed = `${product.productName.slice(0, 8)}_改`;
        await user.clear(name);
        await user.type(name, renamed);
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '编辑产品' })).not.toBeInTheDocument());
        expect(await screen.findByRole('heading', { name: renamed })).toBeInTheDocument();
        expect((await api<ProductRow>(`/api/product/detail?productId=${product.productId}`)).productName).toBe(renamed);
        product.productName = renamed;
    });

    it('switches to the topic tab in the URL and shows both topic tables with the real productKey', async () => {
        const user = userEvent.setup({ delay: null });
        renderAt(`/productDetail/view?productId=${product.productId}`);
        await waitForHeading(product.productName);
        await user.click(screen.getByRole('tab', { name: 'Topic类列表' }));
        await waitFor(() =>
            expect(`${currentLocation.pathname}${currentLocation.search}`).toBe(
                `/productDetail/topic?productId=${product.productId}`,
            ),
        );

        const basic = await screen.findByRole('table', { name: '基础通信Topic' });
        expect(
            within(basic).getByText(`/sys/${product.productKey}/\${deviceName}/thing/config/push`),
        ).toBeInTheDocument();
        expect(
            within(basic)
                .getAllByRole('columnheader')
                .map((h) => h.textContent),
        ).toEqual(['功能', 'Topic', '操作权限', '描述']);

        await user.click(screen.getByRole('radio', { name: '物模型通信Topic' }));
        const model = await screen.findByRole('table', { name: '物模型通信Topic' });
        expect(
            within(model).getByText(`/sys/${product.productKey}/\${deviceName}/thing/event/property/post`),
        ).toBeInTheDocument();
        expect(screen.queryByRole('table', { name: '基础通信Topic' })).not.toBeInTheDocument();
    });

    it('shows the ProductSecret only after 查看 is confirmed, and turns 动态注册 and then 免预注册 on', async () => {
        const user = userEvent.setup({ delay: null });
        const { productSecret } = await api<{ productSecret: string }>(
            `/api/product/secret?productId=${product.productId}`,
        );
        renderAt(`/productDetail/view?productId=${product.productId}`);
        await waitForHeading(product.productName);
        const auth = screen.getByRole('region', { name: '设备认证（一型一密）' });
        expect(within(auth).getByLabelText('ProductSecret', { selector: 'dd' })).not.toHaveTextContent(productSecret);
        expect(within(auth).getByLabelText('动态注册', { selector: 'dd' })).toHaveTextContent('已关闭');
        // 免预注册 waits for 动态注册.
        expect(within(auth).getByRole('switch', { name: '开启免预注册' })).toBeDisabled();

        await user.click(within(auth).getByRole('button', { name: '查看 ProductSecret' }));
        const confirm = await screen.findByRole('dialog', { name: '查看 ProductSecret' });
        expect(within(confirm).queryByText(productSecret)).not.toBeInTheDocument();
        await user.click(within(confirm).getByRole('button', { name: '确定' }));
        const shown = await screen.findByRole('dialog', { name: 'ProductSecret' });
        expect(within(shown).getByText(productSecret)).toBeInTheDocument();
        await user.click(within(shown).getByRole('button', { name: '关闭' }));
        // The page is hidden from the accessibility tree (aria-hidden) until the dialogs' exit transitions end.
        await waitFor(() => expect(screen.queryAllByRole('dialog', { hidden: true })).toEqual([]));

        await user.click(within(auth).getByRole('switch', { name: '开启动态注册' }));
        await user.click(
            within(await screen.findByRole('dialog', { name: '开启动态注册' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('已开启动态注册')).toBeInTheDocument();
        await waitFor(() =>
            expect(within(auth).getByLabelText('动态注册', { selector: 'dd' })).toHaveTextContent('已开启'),
        );
        await waitFor(() => expect(within(auth).getByRole('switch', { name: '开启免预注册' })).toBeEnabled());
        await user.click(within(auth).getByRole('switch', { name: '开启免预注册' }));
        await user.click(
            within(await screen.findByRole('dialog', { name: '开启免预注册' })).getByRole('button', { name: '确定' }),
        );
        await waitFor(() =>
            expect(within(auth).getByLabelText('免预注册', { selector: 'dd' })).toHaveTextContent('已开启'),
        );
        expect(
            await api<ProductRow & { dynamicRegister: boolean; noPreRegister: boolean }>(
                `/api/product/detail?productId=${product.productId}`,
            ),
        ).toMatchObject({ dynamicRegister: true, noPreRegister: true });
    });

    it('says clearly when the product does not exist, with a way back', async () => {
        renderAt('/productDetail/view?productId=987654');
        expect(await screen.findByText('产品不存在', {}, { timeout: 15_000 })).toBeInTheDocument();
        expect(screen.getByText(/未找到ID为 987654 的产品/)).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回产品管理' })).toHaveAttribute('href', '/product');
    });

    it('says so when the productId is missing', async () => {
        renderAt('/productDetail/view');
        expect(await screen.findByText(/缺少产品ID/, {}, { timeout: 15_000 })).toBeInTheDocument();
    });
});
