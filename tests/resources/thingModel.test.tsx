import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createTestServer, type TestServer } from '../../server/testing';
import { chooseOption, mswServer, platformHandler, renderApp } from './helpers';

// The 功能定义 tab of the real console against the in-process reference server; every outcome is checked
// on the server too, so a screen that only looks right cannot pass.
let platform: TestServer;
let categoryId: number;
let productSeq = 0;

interface Fn {
    id: number;
    type: string;
    identifier: string;
    name: string;
    standard?: boolean;
    dataType?: { type: string; specs?: unknown };
}

async function api<T>(path: string, init?: RequestInit): Promise<T> {
    const body = await (await platform.fetch(path, init)).json();
    expect(body.code, JSON.stringify(body)).toBe(200);
    return body.data as T;
}

const postJson = (path: string, data: unknown) =>
    api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) });

async function newProduct(): Promise<{ productId: number; productKey: string }> {
    const form = new URLSearchParams({
        productName: `物模型测试_${++productSeq}`,
        categoryId: String(categoryId),
        nodeType: '0',
        gatewayType: '0',
        networkType: '5',
        dataType: '0',
        remark: '',
    });
    return api('/api/product/save', { method: 'POST', body: form });
}

const functionsOf = async (productId: number) =>
    (await api<{ records: Fn[] }>(`/api/function/list?productId=${productId}&pageNumber=1&pageSize=100`)).records;

const temperature = (productId: number, identifier = 'Temp') => ({
    productId,
    type: 'property',
    identifier,
    name: '温度',
    accessMode: 'r',
    dataType: { type: 'float', specs: { min: -40, max: 120, unit: '°C' } },
});

/** jsdom's Blob has no text(); FileReader it has. */
const readBlob = (blob: Blob) =>
    new Promise<string>((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error);
        reader.readAsText(blob);
    });

type Tree = { id: number; name: string; children?: Tree[] };
const findCategory = (nodes: Tree[], name: string): Tree | undefined =>
    nodes.map((n) => (n.name === name ? n : findCategory(n.children ?? [], name))).find(Boolean);

beforeAll(async () => {
    platform = await createTestServer({ seed: false });
    // Compile the lazily loaded page once here, not inside the first test's time budget.
    await Promise.all([import('../../src/engine/page'), import('../../src/widgets/thingModel/DataTypeSpec')]);
    // A category whose standard functions are known: 路灯照明 offers LightSwitch, Brightness, ...
    categoryId = findCategory(await api<Tree[]>('/api/product/list-category'), '路灯照明')!.id;
});

afterAll(async () => {
    await platform?.close();
});

beforeEach(() => mswServer.use(platformHandler(platform)));

/** Opens the 功能定义 tab of a product and waits for its (lazily loaded) editor. */
async function openEditor(productId: number) {
    renderApp(`/productDetail/function?productId=${productId}`);
    await screen.findByRole('button', { name: '添加自定义功能' }, { timeout: 15_000 });
    await waitFor(() => expect(screen.queryByRole('progressbar')).not.toBeInTheDocument());
}

async function openAddDialog(user: ReturnType<typeof userEvent.setup>) {
    await user.click(screen.getByRole('button', { name: '添加自定义功能' }));
    return screen.findByRole('dialog', { name: '添加自定义功能' });
}

async function fillNames(user: ReturnType<typeof userEvent.setup>, dialog: HTMLElement, name: string, id: string) {
    await user.type(within(dialog).getByLabelText(/^功能名称/), name);
    await user.type(within(dialog).getByLabelText(/^标识符/), id);
}

// The engine's list shows its empty state instead of an empty table: wait for the table to be there.
const functionTable = () => screen.findByRole('table', { name: '功能定义' });
/** The import dialog's file input (the engine's upload dialog has one). */
const fileInput = (dialog: HTMLElement) => dialog.querySelector<HTMLInputElement>('input[type=file]')!;

// Nested dialogs typed into key by key: generous, so a loaded CI machine does not fail them on time alone.
describe('thing model editor', { timeout: 60_000 }, () => {
    it('adds an int property with range and unit, shown in the table and stored on the server', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await openEditor(productId);
        const dialog = await openAddDialog(user);
        await fillNames(user, dialog, '温度', 'Temperature');
        expect(within(dialog).getByRole('combobox', { name: /数据类型/ })).toHaveTextContent('int32 (整数型)');
        await user.type(within(dialog).getByLabelText(/^最小值/), '0');
        await user.type(within(dialog).getByLabelText(/^最大值/), '100');
        await user.type(within(dialog).getByLabelText('单位'), '摄氏');
        await user.click(await screen.findByRole('option', { name: '摄氏度 / °C' }));
        await user.click(within(dialog).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        const row = (await within(await functionTable()).findByText('Temperature')).closest('tr')!;
        expect(row).toHaveTextContent('属性');
        expect(row).toHaveTextContent('温度');
        expect(row).toHaveTextContent('int32 (整数型)');
        expect(row).toHaveTextContent('取值范围: 0 ~ 100，单位: 摄氏度 / °C');
        expect(row).toHaveTextContent('读写');

        const [saved] = await functionsOf(productId);
        expect(saved).toMatchObject({
            type: 'property',
            identifier: 'Temperature',
            accessMode: 'rw',
            dataType: { type: 'int', specs: { min: 0, max: 100, unit: '°C' } },
        });
    });

    it('refuses min >= max with the schema message and saves nothing', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await openEditor(productId);
        const dialog = await openAddDialog(user);
        await fillNames(user, dialog, '湿度', 'Humidity');
        await user.type(within(dialog).getByLabelText(/^最小值/), '50');
        await user.type(within(dialog).getByLabelText(/^最大值/), '50');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('最小值必须小于最大值')).toBeInTheDocument();
        expect(await functionsOf(productId)).toEqual([]);
    });

    it('refuses an enum with no items', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await openEditor(productId);
        const dialog = await openAddDialog(user);
        await fillNames(user, dialog, '模式', 'Mode');
        await chooseOption(within(dialog).getByRole('combobox', { name: /数据类型/ }), 'enum (枚举型)');
        await user.click(within(dialog).getByRole('button', { name: '删除枚举项 1' }));
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请至少添加一个枚举项')).toBeInTheDocument();
        expect(await functionsOf(productId)).toEqual([]);

        // With items it goes through and the table says what they mean.
        await user.click(within(dialog).getByRole('button', { name: '添加枚举项' }));
        await user.type(within(dialog).getByLabelText('枚举描述 1'), '关');
        await user.click(within(dialog).getByRole('button', { name: '添加枚举项' }));
        await user.type(within(dialog).getByLabelText('枚举描述 2'), '开');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(await functionTable()).findByText('枚举值: 0 - 关, 1 - 开')).toBeInTheDocument();
        const [saved] = await functionsOf(productId);
        expect(saved.dataType).toEqual({ type: 'enum', specs: { '0': '关', '1': '开' } });
    });

    it('adds a struct property with a member edited in its own dialog', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await openEditor(productId);
        const dialog = await openAddDialog(user);
        await fillNames(user, dialog, '位置', 'Location');
        await chooseOption(within(dialog).getByRole('combobox', { name: /数据类型/ }), 'struct (结构体)');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请至少添加一个结构体参数')).toBeInTheDocument();

        await user.click(within(dialog).getByRole('button', { name: '添加参数' }));
        const member = await screen.findByRole('dialog', { name: '添加参数' });
        // A member cannot itself be a struct.
        await user.click(within(member).getByRole('combobox', { name: /数据类型/ }));
        const types = await screen.findByRole('listbox');
        expect(within(types).queryByRole('option', { name: 'struct (结构体)' })).not.toBeInTheDocument();
        await user.click(within(types).getByRole('option', { name: 'double (双精度浮点型)' }));
        await user.type(within(member).getByLabelText(/^参数名称/), '经度');
        await user.type(within(member).getByLabelText(/^标识符/), 'Longitude');
        await user.type(within(member).getByLabelText(/^最小值/), '-180');
        await user.type(within(member).getByLabelText(/^最大值/), '180');
        await user.click(within(member).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加参数' })).not.toBeInTheDocument());

        const members = within(dialog).getByRole('list', { name: 'JSON 对象（结构体参数）' });
        expect(within(members).getByRole('listitem')).toHaveTextContent('经度（Longitude）');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));

        expect(await within(await functionTable()).findByText('结构体参数: 经度(Longitude)')).toBeInTheDocument();
        const [saved] = await functionsOf(productId);
        expect(saved.dataType).toEqual({
            type: 'struct',
            specs: [
                { identifier: 'Longitude', name: '经度', dataType: { type: 'double', specs: { min: -180, max: 180 } } },
            ],
        });
    });

    it("shows the server's 标识符已存在 in the dialog for a duplicate identifier", async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Temp'));
        await openEditor(productId);
        const dialog = await openAddDialog(user);
        await fillNames(user, dialog, '温度二', 'Temp');
        await user.type(within(dialog).getByLabelText(/^最小值/), '0');
        await user.type(within(dialog).getByLabelText(/^最大值/), '10');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('标识符已存在')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '添加自定义功能' })).toBeInTheDocument();
        expect(await functionsOf(productId)).toHaveLength(1);
    });

    it('edits a function with its type locked', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Temp'));
        await openEditor(productId);
        await user.click(await within(await functionTable()).findByRole('button', { name: '编辑 Temp' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑功能' });
        expect(within(dialog).getByRole('radio', { name: '事件' })).toBeDisabled();
        expect(within(dialog).getByLabelText(/^最大值/)).toHaveValue(120);
        const name = within(dialog).getByLabelText(/^功能名称/);
        await user.clear(name);
        await user.type(name, '环境温度');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(await within(await functionTable()).findByText('环境温度')).toBeInTheDocument();
        const [saved] = await functionsOf(productId);
        expect(saved).toMatchObject({ identifier: 'Temp', name: '环境温度', dataType: { type: 'float' } });
    });

    it('deletes a function only after confirmation', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Temp'));
        await openEditor(productId);
        await user.click(await within(await functionTable()).findByRole('button', { name: '删除 Temp' }));
        const confirm = await screen.findByRole('dialog', { name: '删除功能' });
        expect(confirm).toHaveTextContent('确认删除功能“温度（Temp）”吗？');
        await user.click(within(confirm).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '删除功能' })).not.toBeInTheDocument());
        expect(await functionsOf(productId)).toHaveLength(1);

        await user.click(within(await functionTable()).getByRole('button', { name: '删除 Temp' }));
        await user.click(
            within(await screen.findByRole('dialog', { name: '删除功能' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        // The last function gone, the list says it is empty and no row is left.
        expect(await screen.findByText('暂无功能定义，请添加自定义功能或标准功能')).toBeInTheDocument();
        expect(screen.queryByRole('button', { name: '删除 Temp' })).not.toBeInTheDocument();
        expect(await functionsOf(productId)).toEqual([]);
    });

    it("adds standard functions picked from the product category's list", async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await openEditor(productId);
        await user.click(screen.getByRole('button', { name: '添加标准功能' }));
        const dialog = await screen.findByRole('dialog', { name: '添加标准功能' });
        await user.click(await within(dialog).findByRole('checkbox', { name: '选择 LightSwitch' }));
        await user.click(within(dialog).getByRole('checkbox', { name: '选择 Brightness' }));
        expect(within(dialog).getByText('已选 2 个')).toBeInTheDocument();
        await user.click(within(dialog).getByRole('button', { name: '添加' }));

        expect(await screen.findByText('已添加 2 个标准功能')).toBeInTheDocument();
        expect(await within(await functionTable()).findByText('LightSwitch')).toBeInTheDocument();
        expect(within(await functionTable()).getByText('布尔值: 0 - 关闭 / 1 - 开启')).toBeInTheDocument();
        const saved = await functionsOf(productId);
        expect(saved.map((f) => [f.identifier, f.standard])).toEqual([
            ['LightSwitch', true],
            ['Brightness', true],
        ]);
    });

    it('imports a JSON thing model after showing what it replaces', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Old'));
        await openEditor(productId);
        await user.click(screen.getByRole('button', { name: '导入物模型' }));
        const dialog = await screen.findByRole('dialog', { name: '导入物模型' });
        const model = {
            properties: [
                {
                    identifier: 'Power',
                    name: '功率',
                    accessMode: 'r',
                    dataType: { type: 'float', specs: { min: '0', max: '10' } },
                },
                {
                    identifier: 'Label',
                    name: '标签',
                    accessMode: 'rw',
                    dataType: { type: 'text', specs: { length: '64' } },
                },
            ],
            events: [{ identifier: 'Fault', name: '故障', type: 'error', outputData: [] }],
            services: [],
        };
        await user.upload(
            fileInput(dialog),
            new File([JSON.stringify(model)], 'model.json', { type: 'application/json' }),
        );
        expect(
            await within(dialog).findByText(
                /现有的 属性 1 个、事件 0 个、服务 0 个\s*将被删除，替换为文件中的 属性 2 个、事件 1 个、服务 0 个/,
            ),
        ).toBeInTheDocument();
        await user.click(within(dialog).getByRole('button', { name: '确认导入' }));

        expect(await screen.findByText('导入成功')).toBeInTheDocument();
        expect(await within(await functionTable()).findByText('Power')).toBeInTheDocument();
        expect(within(await functionTable()).queryByText('Old')).not.toBeInTheDocument();
        expect((await functionsOf(productId)).map((f) => f.identifier)).toEqual(['Power', 'Label', 'Fault']);
    });

    it('refuses a file that is not JSON, and a model the server refuses, changing nothing', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Old'));
        await openEditor(productId);
        await user.click(screen.getByRole('button', { name: '导入物模型' }));
        const dialog = await screen.findByRole('dialog', { name: '导入物模型' });
        const input = fileInput(dialog);

        await user.upload(input, new File(['{"properties": ['], 'broken.json', { type: 'application/json' }));
        expect(await within(dialog).findByText('文件不是有效的 JSON，请检查文件内容')).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '确认导入' })).toBeDisabled();

        const refused = {
            properties: [{ identifier: 'Bad', name: '坏属性', accessMode: 'r', dataType: { type: 'int', specs: {} } }],
        };
        await user.upload(input, new File([JSON.stringify(refused)], 'refused.json', { type: 'application/json' }));
        // The file is read asynchronously: the button enables only once the new model is parsed.
        const confirm = within(dialog).getByRole('button', { name: '确认导入' });
        await waitFor(() => expect(confirm).toBeEnabled());
        await user.click(confirm);
        // The engine says an upload's failure in its toast; the dialog stays open.
        expect(await screen.findByText('属性「坏属性」：请输入最小值')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '导入物模型' })).toBeInTheDocument();

        expect((await functionsOf(productId)).map((f) => f.identifier)).toEqual(['Old']);
    });

    it('shows the whole model as TSL JSON in a dialog with 复制 and 关闭', async () => {
        const user = userEvent.setup({ delay: null });
        const { productId, productKey } = await newProduct();
        await postJson('/api/function/save', temperature(productId, 'Temp'));
        await openEditor(productId);
        await user.click(screen.getByRole('button', { name: '查看物模型' }));
        const dialog = await screen.findByRole('dialog', { name: '查看物模型（TSL）' });
        const json = await within(dialog).findByLabelText('物模型 JSON');
        await waitFor(() => expect(json.textContent).toContain('"identifier": "Temp"'));
        expect(JSON.parse(json.textContent ?? '')).toMatchObject({ profile: { productKey } });
        await user.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() =>
            expect(screen.queryByRole('dialog', { name: '查看物模型（TSL）' })).not.toBeInTheDocument(),
        );
    });

    describe('export', () => {
        const created: Blob[] = [];
        let downloads: string[] = [];

        beforeEach(() => {
            created.length = 0;
            downloads = [];
            URL.createObjectURL = vi.fn((blob: Blob) => {
                created.push(blob);
                return 'blob:thing-model';
            }) as typeof URL.createObjectURL;
            URL.revokeObjectURL = vi.fn();
            vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
                downloads.push(this.download);
            });
        });

        afterEach(() => vi.restoreAllMocks());

        it('downloads the current model as {productKey}-thing-model.json', async () => {
            const user = userEvent.setup({ delay: null });
            const { productId, productKey } = await newProduct();
            await postJson('/api/function/save', temperature(productId, 'Temp'));
            await openEditor(productId);
            await user.click(screen.getByRole('button', { name: '导出物模型' }));

            await waitFor(() => expect(downloads).toEqual([`${productKey}-thing-model.json`]));
            const file = JSON.parse(await readBlob(created[0]));
            expect(file).toEqual(await api(`/api/function/export?productId=${productId}`));
            expect(file.profile.productKey).toBe(productKey);
            expect(file.properties.map((p: { identifier: string }) => p.identifier)).toEqual(['Temp']);
        });
    });
});
