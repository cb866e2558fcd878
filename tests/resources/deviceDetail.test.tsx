import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FILE_MESSAGES, FILE_RULE_TEXT } from '../../schemas/deviceFile';
import { TAG_MESSAGES } from '../../schemas/tag';
import { deviceFiles, foundDevices } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, mswServer, platformHandler, renderApp, searchParam } from './helpers';
import { FakeMap } from '../fakes/maplibre';

/**
 * The device detail screens against the reference platform in-process (server/testing.ts), so one test covers screen,
 * data provider, contract and server. jsdom has no WebGL: the resources project draws maps on a fake
 * (tests/fakes/maplibre.ts) whose clicks the test fires (the real map is proven in Chromium, tests/e2e/deviceDetail.test.ts).
 */

interface Answer<T> {
    code: number | string;
    msg: string;
    data: T;
}
interface Device {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    remark: string | null;
    secret: string;
    username: string;
    clientId: string;
    status: string;
    latitude: number | null;
    longitude: number | null;
    addr: string | null;
}
interface Product {
    productId: number;
    productKey: string;
    productName: string;
}

const tabNames = () => screen.getAllByRole('tab').map((t) => t.textContent);
const selectedTab = () => screen.getAllByRole('tab').find((t) => t.getAttribute('aria-selected') === 'true');
const dialogNamed = (name: string) => screen.findByRole('dialog', { name });
/** The first render loads the console's lazy chunks: on a busy machine that takes longer than findBy's default. */
const deviceTitle = () => screen.findByRole('heading', { level: 1 }, { timeout: 20_000 });
/** The page's header: the device's name over its product and ProductKey. */
const header = (name: string) => screen.getByRole('region', { name });
/** The tag list under the device info: a row per tag. */
const tagRow = (key: string, value: string) =>
    screen.findByRole('row', { name: new RegExp(`${key}.*${value}`) }, { timeout: 10_000 });

describe('device detail screens', () => {
    let platform: TestServer;
    let serial = 0;
    let plain: Product;
    let gateway: Product;

    async function json<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
        return (await platform.fetch(path, init)).json() as Promise<Answer<T>>;
    }

    async function newProduct(nodeType: 0 | 1): Promise<Product> {
        const tree = (await json<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category')).data;
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        const answer = await json<Product>('/api/product/save', {
            method: 'POST',
            body: new URLSearchParams({
                productName: `详情测试产品${nodeType}${Date.now() % 100000}`,
                nodeType: String(nodeType),
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            }),
        });
        expect(answer.code).toBe(200);
        return answer.data;
    }

    async function newDevice(product: Product, remark = '一号设备'): Promise<Device> {
        serial += 1;
        const answer = await json<Device>('/api/device/save', {
            method: 'POST',
            body: new URLSearchParams({ productKey: product.productKey, deviceName: `detail_${serial}`, remark }),
        });
        expect(answer.code).toBe(0);
        return answer.data;
    }

    async function deviceNow(deviceId: number): Promise<Device> {
        return (await json<{ device: Device }>(`/api/device/detail?deviceId=${deviceId}`)).data.device;
    }

    async function tagsOf(deviceId: number): Promise<Array<{ id: number; key: string; value: string }>> {
        const answer = await json<{ list: Array<{ id: number; key: string; value: string }> }>(
            `/api/tag/get?type=2&objectId=${deviceId}`,
        );
        expect(answer.code).toBe(200);
        return answer.data.list;
    }

    beforeAll(async () => {
        platform = await createTestServer({ seed: false });
        plain = await newProduct(0);
        gateway = await newProduct(1);
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    it('/devInstanceDetail: header, breadcrumb, the tabs of a device, each tab a sub-route', async () => {
        const device = await newDevice(plain);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        expect(await deviceTitle()).toHaveTextContent(device.deviceName);
        expect(screen.getByRole('link', { name: plain.productName })).toHaveAttribute(
            'href',
            `/productDetail/${plain.productId}`,
        );
        expect(within(header(device.deviceName)).getByLabelText('ProductKey')).toHaveTextContent(plain.productKey);
        expect(
            within(screen.getByRole('navigation', { name: 'breadcrumb' })).getByRole('link', { name: '设备管理' }),
        ).toHaveAttribute('href', '/deviceInstance');
        expect(tabNames()).toEqual([
            '设备信息',
            'Topic列表',
            '运行状态',
            '事件管理',
            '服务调用',
            '固件升级',
            '设备影子',
        ]);
        expect(selectedTab()).toHaveTextContent('设备信息');
        expect(await screen.findByLabelText('备注名称')).toHaveTextContent('一号设备');

        fireEvent.click(screen.getByRole('tab', { name: 'Topic列表' }));
        await waitFor(() =>
            expect(currentLocation.pathname).toBe(`/devInstanceDetail/${plain.productId}/${device.deviceId}/topic`),
        );
        expect(
            await screen.findByText(`/sys/${plain.productKey}/${device.deviceName}/thing/config/push`),
        ).toBeInTheDocument();
        fireEvent.click(screen.getByRole('radio', { name: '物模型通信Topic' }));
        expect(
            await screen.findByText(`/sys/${plain.productKey}/${device.deviceName}/thing/event/property/post`),
        ).toBeInTheDocument();
    });

    it('a gateway gets 子设备管理; ?child=true opens it; a bookmarked sub-route opens its tab', async () => {
        const device = await newDevice(gateway, '网关');
        renderApp(`/devInstanceDetail/${gateway.productId}/${device.deviceId}?child=true`);
        await deviceTitle();
        expect(tabNames()).toEqual([
            '设备信息',
            'Topic列表',
            '运行状态',
            '事件管理',
            '服务调用',
            '子设备管理',
            '固件升级',
            '设备影子',
        ]);
        expect(selectedTab()).toHaveTextContent('子设备管理');
        expect(screen.getByRole('tabpanel')).toHaveAccessibleName('子设备管理');
    });

    it('lists what the gateway found under its sub-devices; 添加 creates and binds one, 忽略 drops another', async () => {
        const user = userEvent.setup({ delay: null });
        const device = await newDevice(gateway, '发现网关');
        // What a gateway's thing/list/found leaves (tests/server/gatewayTopo.test.ts publishes it for real).
        await platform.db.insert(foundDevices).values([
            { gwId: device.deviceId, productKey: plain.productKey, deviceName: 'found_new_01' },
            { gwId: device.deviceId, productKey: plain.productKey, deviceName: 'found_new_02' },
        ]);
        renderApp(`/devInstanceDetail/${gateway.productId}/${device.deviceId}/childDevice`);
        await deviceTitle();
        const found = await screen.findByRole('table', { name: '网关发现的子设备' }, { timeout: 10_000 });
        const first = await within(found).findByRole('row', { name: /found_new_01/ });
        expect(first).toHaveTextContent('尚未添加（添加时创建）');
        await user.click(within(first).getByRole('button', { name: '添加发现的子设备 found_new_01' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('平台中还没有设备“found_new_01”');
        await user.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        const subs = screen.getByRole('table', { name: '子设备' });
        expect(
            await within(subs).findByRole('link', { name: 'found_new_01' }, { timeout: 10_000 }),
        ).toBeInTheDocument();
        await waitFor(() => expect(within(found).queryByRole('row', { name: /found_new_01/ })).not.toBeInTheDocument());

        const second = within(found).getByRole('row', { name: /found_new_02/ });
        await user.click(within(second).getByRole('button', { name: '忽略发现的子设备 found_new_02' }));
        expect(await screen.findByText('已忽略')).toBeInTheDocument();
        // Nothing left: the list says so in place of its table.
        expect(await screen.findByText('网关暂未上报发现的子设备', {}, { timeout: 10_000 })).toBeInTheDocument();
    });

    it('/childDeviceDetail: the three tabs of a sub-device, bound to its sub-routes', async () => {
        const device = await newDevice(plain, '子设备');
        renderApp(`/childDeviceDetail/${plain.productId}/${device.deviceId}/childDeviceTopic`);
        await deviceTitle();
        expect(tabNames()).toEqual(['设备信息', 'Topic列表', '运行状态', '设备影子']);
        expect(selectedTab()).toHaveTextContent('Topic列表');
        fireEvent.click(screen.getByRole('tab', { name: '运行状态' }));
        await waitFor(() =>
            expect(currentLocation.pathname).toBe(
                `/childDeviceDetail/${plain.productId}/${device.deviceId}/childRunStatus`,
            ),
        );
        expect(selectedTab()).toHaveTextContent('运行状态');
    });

    it('/devices/{pk}/{dn}: checkIdx picks the tab, 5 only on a gateway, the tab stays in the URL', async () => {
        const device = await newDevice(plain);
        const { unmount } = renderApp(
            `/devices/${plain.productKey}/${device.deviceName}?devicesId=${device.deviceId}&checkIdx=5`,
        );
        await deviceTitle();
        expect(tabNames()).toEqual([
            '设备信息',
            'Topic列表',
            '物模型数据',
            '文件管理',
            '数据订阅',
            '固件升级',
            '设备影子',
        ]);
        expect(selectedTab()).toHaveTextContent('设备信息');
        expect(
            within(screen.getByRole('navigation', { name: 'breadcrumb' })).getByRole('link', { name: '设备管理' }),
        ).toHaveAttribute('href', '/devices');

        fireEvent.click(screen.getByRole('tab', { name: '数据订阅' }));
        await waitFor(() => expect(searchParam('checkIdx')).toBe('6'));
        expect(searchParam('devicesId')).toBe(String(device.deviceId));
        expect(await screen.findByText('暂无数据订阅')).toBeInTheDocument();
        expect(await screen.findByText(/可在“服务端订阅”中为该产品新建订阅/)).toHaveTextContent(device.deviceName);
        unmount();

        const gw = await newDevice(gateway, '网关');
        // No devicesId: the path alone names the device.
        renderApp(`/devices/${gateway.productKey}/${gw.deviceName}?checkIdx=5`);
        await deviceTitle();
        expect(tabNames()).toEqual([
            '设备信息',
            'Topic列表',
            '物模型数据',
            '文件管理',
            '子设备管理',
            '数据订阅',
            '固件升级',
            '设备影子',
        ]);
        expect(selectedTab()).toHaveTextContent('子设备管理');
    });

    it('a device that does not exist: loading first, then its page, with the way back', async () => {
        // The answer is held until the loading state has been seen.
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        mswServer.use(
            http.get('*/api/device/detail', async ({ request }) => {
                await held;
                return platform.fetch(new URL(request.url).pathname + new URL(request.url).search);
            }),
        );
        renderApp(`/devInstanceDetail/${plain.productId}/987654`);
        expect(await screen.findByLabelText('加载中')).toBeInTheDocument();
        expect(screen.getByText('设备信息加载中…')).toBeInTheDocument();
        release();
        expect(await screen.findByText('设备不存在')).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回设备管理' })).toHaveAttribute('href', '/deviceInstance');
        expect(screen.queryByRole('tab')).toBeNull();
    });

    it('masks the secret until revealed, and copies each credential', async () => {
        const writeText = vi.fn(async () => undefined);
        Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
        const device = await newDevice(plain);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await deviceTitle();
        expect(screen.getByLabelText('用户名')).toHaveTextContent(device.username);
        expect(screen.getByLabelText('ClientId')).toHaveTextContent(device.clientId);
        expect(document.body.textContent).not.toContain(device.secret);

        fireEvent.click(screen.getByRole('button', { name: '复制 密码' }));
        await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(device.secret));
        expect(await screen.findByText('复制成功')).toBeInTheDocument();
        expect(document.body.textContent).not.toContain(device.secret);

        fireEvent.click(within(screen.getByLabelText('密码')).getByRole('button', { name: '显示' }));
        expect(screen.getByLabelText('密码')).toHaveTextContent(device.secret);
        fireEvent.click(within(screen.getByLabelText('密码')).getByRole('button', { name: '隐藏' }));
        expect(document.body.textContent).not.toContain(device.secret);

        fireEvent.click(screen.getByRole('button', { name: '复制 用户名' }));
        await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(device.username));
        fireEvent.click(screen.getByRole('button', { name: '复制 ClientId' }));
        await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(device.clientId));
    });

    it('edits the remark: required, then 修改成功; a refusal shows the server message', async () => {
        const device = await newDevice(plain);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await deviceTitle();
        fireEvent.click(screen.getByRole('button', { name: '编辑' }));
        let dialog = await dialogNamed('编辑设备');
        const remark = within(dialog).getByLabelText(/备注名称/);
        expect(remark).toHaveAttribute('maxlength', '100');
        // Shown, not editable.
        expect(within(dialog).getByLabelText(/DeviceName/)).toHaveAttribute('readonly');
        await userEvent.clear(remark);
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('备注名称不能为空')).toBeInTheDocument();

        await userEvent.type(remark, '二号机房');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.getByLabelText('备注名称')).toHaveTextContent('二号机房'));
        expect((await deviceNow(device.deviceId)).remark).toBe('二号机房');
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '编辑设备' })).toBeNull());

        mswServer.use(
            http.post('*/api/device/UpdateDeviceNickname', () =>
                HttpResponse.json({ returnCode: '9999', returnMessage: '设备已被锁定' }),
            ),
        );
        fireEvent.click(screen.getByRole('button', { name: '编辑' }));
        dialog = await dialogNamed('编辑设备');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('设备已被锁定')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '编辑设备' })).toBeInTheDocument();
    });

    it('刷新 asks the platform for the status and shows what it answers', async () => {
        const device = await newDevice(plain);
        let statusCalls = 0;
        mswServer.use(
            http.post('*/api/device/getStatus', async ({ request }) => {
                statusCalls += 1;
                const form = new URLSearchParams(await request.text());
                expect(form.get('deviceName')).toBe(device.deviceName);
                expect(form.get('productKey')).toBe(plain.productKey);
                return platform.app.fetch(
                    new Request(request.url, {
                        method: 'POST',
                        headers: {
                            cookie: `Authorization=${platform.token}`,
                            'content-type': 'application/x-www-form-urlencoded',
                        },
                        body: form,
                    }),
                );
            }),
        );
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await deviceTitle();
        expect(screen.getByLabelText('当前状态')).toHaveTextContent('未激活');
        const disabled = await json(`/api/device/update?deviceId=${device.deviceId}&action=disable`, { method: 'PUT' });
        expect(disabled.code).toBe(0);

        fireEvent.click(within(screen.getByRole('tabpanel')).getByRole('button', { name: '刷新' }));
        await waitFor(() => expect(screen.getByLabelText('当前状态')).toHaveTextContent('已禁用'));
        expect(statusCalls).toBe(1);
    });

    it('tag rows: every rule of schemas/tag.ts, with its message', async () => {
        const device = await newDevice(plain);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await deviceTitle();
        fireEvent.click(await screen.findByRole('button', { name: '编辑标签' }));
        const dialog = await dialogNamed('编辑标签');
        // The dialog starts from the tags the platform holds now: the form shows once they arrived.
        await within(dialog).findByRole('button', { name: '添加标签' }, { timeout: 10_000 });
        const add = () => fireEvent.click(within(dialog).getByRole('button', { name: '添加标签' }));
        const key = (n: number) => within(dialog).getAllByRole('textbox', { name: /^Key/ })[n - 1];
        const value = (n: number) => within(dialog).getAllByRole('textbox', { name: /^Value/ })[n - 1];
        const save = () => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

        add();
        save();
        expect(await within(dialog).findByText(TAG_MESSAGES.keyRequired)).toBeInTheDocument();
        expect(within(dialog).getByText(TAG_MESSAGES.valueRequired)).toBeInTheDocument();

        const cases: Array<[string, string, string]> = [
            ['k'.repeat(31), 'v', TAG_MESSAGES.keyMax],
            ['a-b', 'v', TAG_MESSAGES.keyCharset],
            ['ok', '   ', TAG_MESSAGES.valueRequired],
            ['ok', 'v'.repeat(129), TAG_MESSAGES.valueMax],
            ['ok', 'a b', TAG_MESSAGES.valueCharset],
        ];
        // After the first 确定 every change is checked again (the schema answers asynchronously).
        for (const [k, v, message] of cases) {
            fireEvent.change(key(1), { target: { value: k } });
            fireEvent.change(value(1), { target: { value: v } });
            expect(await within(dialog).findByText(message)).toBeInTheDocument();
        }
        fireEvent.change(key(1), { target: { value: 'floor' } });
        fireEvent.change(value(1), { target: { value: '三楼:A区_1' } });
        await waitFor(() =>
            expect(within(dialog).queryByText(/不能|不得|只允许|支持/, { selector: '.Mui-error' })).toBeNull(),
        );

        add();
        fireEvent.change(key(2), { target: { value: 'floor' } });
        fireEvent.change(value(2), { target: { value: '4' } });
        expect(await within(dialog).findByText(TAG_MESSAGES.keyDuplicate)).toBeInTheDocument();
        save();
        // Nothing was sent while a rule fails.
        expect(await tagsOf(device.deviceId)).toEqual([]);

        fireEvent.click(within(dialog).getByRole('button', { name: '删除第2行' }));
        await waitFor(() => expect(within(dialog).queryByText(TAG_MESSAGES.keyDuplicate)).toBeNull());
        save();
        expect(await screen.findByText('保存成功')).toBeInTheDocument();
        expect(await tagsOf(device.deviceId)).toEqual([expect.objectContaining({ key: 'floor', value: '三楼:A区_1' })]);
        expect(await tagRow('floor', '三楼:A区_1')).toBeInTheDocument();
    });

    it('location tag: 请先位置确定, the picker disabled until a click, then saved with its address', async () => {
        const device = await newDevice(plain);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        await deviceTitle();
        expect(await screen.findByText('未设置位置')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '编辑标签' }));
        const dialog = await dialogNamed('编辑标签');
        fireEvent.click(await within(dialog).findByRole('switch', { name: '设置位置标签' }, { timeout: 10_000 }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请先位置确定')).toBeInTheDocument();

        FakeMap.last = undefined;
        fireEvent.click(within(dialog).getByRole('button', { name: '选择位置' }));
        const picker = await dialogNamed('选择位置');
        const confirm = within(picker).getByRole('button', { name: '确认位置' });
        expect(confirm).toBeDisabled();
        await waitFor(() => expect(FakeMap.last?.handlers.some((h) => h.event === 'click')).toBe(true));
        // A point the platform cannot locate (the Pacific): confirming says '请选择地址' and keeps the picker open.
        await act(() => FakeMap.last!.fire('click', { lngLat: { lng: 150, lat: 20 } }));
        expect(confirm).toBeEnabled();
        expect(await within(picker).findByText('当前地址：该位置不在支持的范围内')).toBeInTheDocument();
        fireEvent.click(confirm);
        expect(await within(picker).findByRole('alert')).toHaveTextContent('请选择地址');
        expect(screen.getByRole('dialog', { name: '选择位置' })).toBeInTheDocument();

        await act(() => FakeMap.last!.fire('click', { lngLat: { lng: 121.4737, lat: 31.2304 } }));
        expect(await within(picker).findByText(/当前地址：上海市.*黄浦区/)).toBeInTheDocument();
        fireEvent.click(confirm);
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '选择位置' })).toBeNull());
        await waitFor(() => expect(within(dialog).queryByText('请先位置确定')).toBeNull());
        expect(within(dialog).getByLabelText('位置')).toHaveValue('上海市黄浦区（121.4737, 31.2304）');

        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('保存成功')).toBeInTheDocument();
        expect(await tagsOf(device.deviceId)).toEqual([
            expect.objectContaining({ key: 'coordinate', value: '31.2304,121.4737' }),
        ]);
        const stored = await deviceNow(device.deviceId);
        expect(stored).toMatchObject({ latitude: 31.2304, longitude: 121.4737 });
        expect(stored.addr).toMatch(/黄浦区/);
        await waitFor(() => expect(screen.getByLabelText('物理位置')).toHaveTextContent('经度 121.4737，纬度 31.2304'));

        // Reopened, the stored point is located again and can be confirmed as it is.
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '编辑标签' })).toBeNull());
        fireEvent.click(screen.getByRole('button', { name: '编辑标签' }));
        const again = await dialogNamed('编辑标签');
        fireEvent.click(await within(again).findByRole('button', { name: '选择位置' }, { timeout: 10_000 }));
        const reopened = await dialogNamed('选择位置');
        expect(await within(reopened).findByText(/当前地址：上海市.*黄浦区/)).toBeInTheDocument();
        fireEvent.click(within(reopened).getByRole('button', { name: '确认位置' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '选择位置' })).toBeNull());
        expect(within(again).queryByText('请选择地址')).toBeNull();
    });

    it('deleting a saved tag asks first, then 删除成功; a failure says 删除失败', async () => {
        const device = await newDevice(plain);
        const saved = await json('/api/tag/save', {
            method: 'POST',
            body: new URLSearchParams({
                type: '2',
                objectId: String(device.deviceId),
                items: JSON.stringify([
                    { key: 'room', value: 'A101' },
                    { key: 'rack', value: 'R7' },
                ]),
            }),
        });
        expect(saved.code).toBe(200);
        renderApp(`/devInstanceDetail/${plain.productId}/${device.deviceId}`);
        expect(await tagRow('room', 'A101')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '编辑标签' }));
        const dialog = await dialogNamed('编辑标签');
        const firstKey = () => within(dialog).getAllByRole('textbox', { name: /^Key/ })[0];
        expect(await waitFor(firstKey, { timeout: 10_000 })).toHaveValue('room');

        fireEvent.click(within(dialog).getByRole('button', { name: '删除第1行' }));
        const ask = await dialogNamed('提示');
        expect(ask).toHaveTextContent('是否删除标签「room」？');
        fireEvent.click(within(ask).getByRole('button', { name: '删除' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());
        expect((await tagsOf(device.deviceId)).map((t) => t.key)).toEqual(['rack']);
        await waitFor(() => expect(firstKey()).toHaveValue('rack'));

        mswServer.use(
            http.post('*/api/tag/delete', () => HttpResponse.json({ code: 404, msg: '删除失败' }, { status: 404 })),
        );
        fireEvent.click(within(dialog).getByRole('button', { name: '删除第1行' }));
        fireEvent.click(within(await dialogNamed('提示')).getByRole('button', { name: '删除' }));
        expect(await screen.findByText('删除失败')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());
        expect(firstKey()).toHaveValue('rack');
    });

    it('files: the list, refusals before sending, delete after confirmation', async () => {
        const device = await newDevice(plain);
        const uploads: string[] = [];
        mswServer.use(
            http.post('*/api/device/file/upload', () => {
                uploads.push('sent');
                return HttpResponse.json({ code: 1, msg: 'unexpected' }, { status: 400 });
            }),
        );
        // The row goes straight into the database: under jsdom a File does not reach the server as one (NOTES.md);
        // uploads are proven in Chromium (tests/e2e/deviceDetail.test.ts) and in the server tests.
        const [inserted] = await platform.db
            .insert(deviceFiles)
            .values({
                deviceId: device.deviceId,
                fileName: 'config.json',
                storedName: `f_${'a'.repeat(31)}${serial}`,
                size: 14,
            })
            .returning({ id: deviceFiles.id });
        const stored = { data: { fileId: inserted.id } };

        renderApp(`/devices/${plain.productKey}/${device.deviceName}?devicesId=${device.deviceId}&checkIdx=4`);
        expect(await screen.findByText('config.json')).toBeInTheDocument();
        const row = screen.getByText('config.json').closest('tr')!;
        expect(row).toHaveTextContent(String(stored.data.fileId));
        expect(row).toHaveTextContent('14 B');
        // 下载 hands the browser a link to the file.
        const followed: string[] = [];
        const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
            this: HTMLAnchorElement,
        ) {
            followed.push(this.href);
        });
        fireEvent.click(within(row).getByRole('button', { name: '下载' }));
        click.mockRestore();
        expect(followed).toEqual([expect.stringContaining(`/api/device/file/download?fileId=${stored.data.fileId}`)]);

        fireEvent.click(screen.getByRole('button', { name: '上传文件' }));
        const dialog = await dialogNamed('上传文件');
        expect(within(dialog).getByText(FILE_RULE_TEXT)).toBeInTheDocument();
        const input = within(dialog).getByLabelText('选择文件');
        fireEvent.change(input, { target: { files: [new File(['MZ'], 'setup.exe')] } });
        expect(await within(dialog).findByText(FILE_MESSAGES.type)).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        fireEvent.change(input, { target: { files: [new File([], 'empty.txt')] } });
        expect(await within(dialog).findByText(FILE_MESSAGES.empty)).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        const big = new File(['x'], 'huge.bin');
        Object.defineProperty(big, 'size', { value: 21 * 1024 * 1024 });
        fireEvent.change(input, { target: { files: [big] } });
        expect(await within(dialog).findByText(FILE_MESSAGES.tooLarge)).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        expect(uploads).toEqual([]);
        fireEvent.click(within(dialog).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '上传文件' })).toBeNull());

        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        const ask = await dialogNamed('提示');
        expect(ask).toHaveTextContent(FILE_MESSAGES.deleteConfirm);
        expect(ask).toHaveTextContent('config.json');
        fireEvent.click(within(ask).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());
        expect(screen.getByText('config.json')).toBeInTheDocument();
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        fireEvent.click(within(await dialogNamed('提示')).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        expect(await screen.findByText('暂无文件，点击“上传文件”添加。')).toBeInTheDocument();
        const left = await json<{ total: number }>(
            `/api/device/file/list?deviceId=${device.deviceId}&pageNumber=1&pageSize=10`,
        );
        expect(left.data.total).toBe(0);
    });
});
