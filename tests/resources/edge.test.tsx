import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import edgeDrivers from '../../resources/edgeDrivers';
import edgeInstances from '../../resources/edgeInstances';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, dismissNotification, mswServer, platformHandler, renderDefinitions } from './helpers';

/**
 * Edge drivers and instances as definitions (resources/edgeDrivers.tsx, resources/edgeInstances.tsx) against the
 * reference platform in-process: a driver created with its message for a bad version, an instance's detail with its
 * tabs as sub-routes, a deployment to a gateway that is not connected recorded in the log tab.
 */

let platform: TestServer;
const SLOW = { timeout: 15_000 };

async function post(path: string, values: Record<string, string | number | Array<string | number>>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) for (const x of [v].flat()) body.append(k, String(x));
    const res = await platform.fetch(path, { method: 'POST', body });
    return ((await res.json()) as { data: Record<string, unknown> }).data;
}

beforeAll(async () => {
    platform = await createTestServer({ seed: false });
});
afterAll(() => platform.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

describe('/edge/driver', () => {
    it('creates a driver, refusing a version that is not x.y.z, and deletes it after its confirmation', async () => {
        renderDefinitions([edgeDrivers], '/edge/driver');
        expect(await screen.findByText('暂无驱动', {}, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getAllByRole('button', { name: '新建驱动' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建驱动' });
        await userEvent.type(within(dialog).getByRole('textbox', { name: /驱动名称/ }), 'opcua_reader');
        const version = within(dialog).getByRole('textbox', { name: /版本/ });
        await userEvent.clear(version);
        await userEvent.type(version, 'v2');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('版本号格式为x.y.z，例如1.0.0')).toBeInTheDocument();
        await userEvent.clear(version);
        await userEvent.type(version, '2.1.0');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功', {}, SLOW)).toBeInTheDocument();
        await dismissNotification('创建成功');
        // The dialog is gone (while it closes, the page behind it is hidden from the accessibility tree).
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        const row = (await screen.findByText('opcua_reader')).closest('tr') as HTMLElement;
        expect(row).toHaveTextContent('2.1.0');
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('确定删除驱动“opcua_reader 2.1.0”吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText('opcua_reader')).not.toBeInTheDocument());
    });
});

describe('/edge/driver packages', () => {
    it('uploads a version with its package through 上传驱动: the row shows its size and 下载', async () => {
        renderDefinitions([edgeDrivers], '/edge/driver');
        expect(await screen.findByText('暂无驱动', {}, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '上传驱动' }));
        const dialog = await screen.findByRole('dialog', { name: '上传驱动' });
        await userEvent.type(within(dialog).getByRole('textbox', { name: /驱动名称/ }), 'bacnet_pkg');
        const bytes = new Uint8Array(Array.from({ length: 1234 }, (_, i) => i % 256));
        fireEvent.change(within(dialog).getByLabelText('选择文件'), {
            target: { files: [new File([bytes], 'bacnet-1.0.0.zip')] },
        });
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        expect(await screen.findByText('上传成功', {}, SLOW)).toBeInTheDocument();
        const row = (await screen.findByText('bacnet_pkg', {}, SLOW)).closest('tr') as HTMLElement;
        // The size as the platform stored it (the file's name does not survive jsdom's XHR through msw, which names
        // every part "blob"; tests/server/edgeDriverPackages.test.ts proves the name).
        expect(row).toHaveTextContent('1,234');
        // While the closing dialog's transition runs, MUI keeps the page aria-hidden: wait until the button is
        // accessible again.
        await waitFor(() => expect(within(row).getByRole('button', { name: '下载' })).toBeInTheDocument());
        const res = await platform.fetch('/api/edge/driver/versions?name=bacnet_pkg');
        const [version] = ((await res.json()) as { data: Array<{ fileSize: number; sha256: string }> }).data;
        expect(version.fileSize).toBe(1234);
        expect(version.sha256).toMatch(/^[0-9a-f]{64}$/);
    });
});

describe('/edge/instance/detail/{id}', () => {
    it('shows the gateway, the drivers with deviceList1 / deviceList2, and a deployment in the log', async () => {
        const gwProduct = await post('/api/product/save', {
            productName: 'edge_gateway',
            nodeType: 1,
            gatewayType: 0,
            categoryId: 1,
            networkType: 5,
            dataType: 0,
        });
        const subProduct = await post('/api/product/save', {
            productName: 'edge_sensor',
            nodeType: 0,
            gatewayType: 0,
            categoryId: 1,
            networkType: 5,
            dataType: 0,
        });
        const gw = await post('/api/device/save', { productKey: String(gwProduct.productKey), deviceName: 'gw01' });
        const sub = await post('/api/device/save', {
            productKey: String(subProduct.productKey),
            deviceName: 'sensor01',
        });
        await post('/api/device/subDevice/add', { gwId: Number(gw.deviceId), deviceId: [Number(sub.deviceId)] });
        const driver = await post('/api/edge/driver/save', {
            name: 'modbus',
            version: '1.0.0',
            protocol: 'modbus_tcp',
        });
        const instance = await post('/api/edge/instance/save', { name: 'edge_a', gatewayId: Number(gw.deviceId) });
        await post('/api/edge/instance/driver/save', { instanceId: Number(instance.id), driverId: Number(driver.id) });

        renderDefinitions([edgeInstances], `/edge/instance/detail/${String(instance.id)}/driver`);
        const heading = await screen.findByRole('heading', { name: 'edge_a' }, SLOW);
        const header = heading.closest('section') as HTMLElement;
        expect(within(header).getByText('未激活')).toBeInTheDocument();
        expect(within(header).getByText('gw01')).toBeInTheDocument();
        expect(await screen.findByText('Modbus TCP', {}, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '可分配子设备' }));
        expect(await screen.findByText('sensor01', {}, SLOW)).toBeInTheDocument();

        fireEvent.click(within(header).getByRole('button', { name: '部署' }));
        fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('版本 1：网关离线（网关设备不在线，配置未下发）', {}, SLOW)).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        fireEvent.click(screen.getByRole('tab', { name: '部署日志' }));
        await waitFor(() => expect(currentLocation.pathname).toBe(`/edge/instance/detail/${String(instance.id)}/log`));
        const log = (await screen.findByText('网关设备不在线，配置未下发', {}, SLOW)).closest('tr') as HTMLElement;
        expect(log).toHaveTextContent('v1');
        expect(log).toHaveTextContent('网关离线');
    });
});
