import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import edgeInstances from '../../resources/edgeInstances';
import { TOPIC_FILTER_TEXT } from '../../schemas/edge';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, dismissNotifications, mswServer, platformHandler, renderDefinitions } from './helpers';

/**
 * The edge instance detail's 监控 / 场景联动 / 函数计算 / 流数据分析 / 消息路由 / 设置 tabs (resources/edge/tabs.tsx) against
 * the reference platform in-process: the tabs in Link IoT Edge's order as sub-routes, 监控's honest empty state, a
 * function with an environment variable, a route refused for a bad topic filter and saved to that function, settings.
 */

let platform: TestServer;
let instanceId: string;
const SLOW = { timeout: 15_000 };

async function post(path: string, values: Record<string, string | number | Array<string | number>>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) for (const x of [v].flat()) body.append(k, String(x));
    const res = await platform.fetch(path, { method: 'POST', body });
    return ((await res.json()) as { data: Record<string, unknown> }).data;
}

async function list(path: string) {
    const res = await platform.fetch(path);
    return ((await res.json()) as { data: { records: Array<Record<string, unknown>> } }).data.records;
}

beforeAll(async () => {
    platform = await createTestServer({ seed: false });
    const product = await post('/api/product/save', {
        productName: 'edge_tabs_gw',
        nodeType: 1,
        gatewayType: 0,
        categoryId: 1,
        networkType: 5,
        dataType: 0,
    });
    const gw = await post('/api/device/save', { productKey: String(product.productKey), deviceName: 'gw_tabs' });
    instanceId = String(
        (await post('/api/edge/instance/save', { name: 'edge_tabs', gatewayId: Number(gw.deviceId) })).id,
    );
});
afterAll(() => platform.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

const open = async (tab: string) => {
    renderDefinitions([edgeInstances], `/edge/instance/detail/${instanceId}/${tab}`);
    await screen.findByRole('heading', { name: 'edge_tabs' }, SLOW);
};

describe('/edge/instance/detail/{id} tabs', () => {
    it('has the tabs of Link IoT Edge in order, each a sub-route; 监控 says the gateway has reported nothing', async () => {
        await open('monitor');
        expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
            '网关',
            '监控',
            '驱动',
            '场景联动',
            '函数计算',
            '流数据分析',
            '消息路由',
            '设置',
            '部署日志',
        ]);
        expect(await screen.findAllByText(/网关最近一小时没有上报监控数据/, {}, SLOW)).toHaveLength(2);
        expect(screen.getByText('CPU使用率（%）')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '消息路由' }));
        await waitFor(() => expect(currentLocation.pathname).toBe(`/edge/instance/detail/${instanceId}/router`));
        expect(await screen.findByText('该实例暂无消息路由', {}, SLOW)).toBeInTheDocument();
    });

    it('函数计算: refuses a bad handler, then creates a function with an environment variable', async () => {
        await open('func');
        expect(await screen.findByText('该实例暂无函数', {}, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getAllByRole('button', { name: '新建函数' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建函数' });
        await userEvent.type(within(dialog).getByRole('textbox', { name: /函数名称/ }), 'rule_fn');
        const handler = within(dialog).getByRole('textbox', { name: /函数入口/ });
        await userEvent.clear(handler);
        await userEvent.type(handler, 'index handler');
        fireEvent.click(within(dialog).getByRole('button', { name: '添加环境变量' }));
        fireEvent.change(within(dialog).getByRole('textbox', { name: '变量名' }), { target: { value: 'MODE' } });
        fireEvent.change(within(dialog).getByRole('textbox', { name: '值' }), { target: { value: 'edge' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('函数入口格式为 文件名.函数名，例如 index.handler')).toBeInTheDocument();
        await userEvent.clear(handler);
        await userEvent.type(handler, 'index.handler');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功', {}, SLOW)).toBeInTheDocument();
        const row = (await screen.findByText('rule_fn', {}, SLOW)).closest('tr') as HTMLElement;
        expect(row).toHaveTextContent('Node.js 20');
        expect(row).toHaveTextContent('MODE=edge');
        const [saved] = await list(`/api/edge/instance/functions?instanceId=${instanceId}`);
        expect(JSON.parse(String(saved.env))).toEqual({ MODE: 'edge' });
    });

    it('函数计算: 编辑 opens the row in the same form, filled in, and saves it under its id', async () => {
        await open('func');
        const row = (await screen.findByText('rule_fn', {}, SLOW)).closest('tr') as HTMLElement;
        fireEvent.click(within(row).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑函数' });
        expect(within(dialog).getByRole('textbox', { name: /函数入口/ })).toHaveValue('index.handler');
        expect(within(dialog).getByRole('textbox', { name: '变量名' })).toHaveValue('MODE');
        const timeout = within(dialog).getByRole('spinbutton', { name: /超时/ });
        await userEvent.clear(timeout);
        await userEvent.type(timeout, '30');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功', {}, SLOW)).toBeInTheDocument();
        const saved = await list(`/api/edge/instance/functions?instanceId=${instanceId}`);
        expect(saved).toHaveLength(1);
        expect(saved[0]).toMatchObject({ name: 'rule_fn', timeoutSeconds: 30, handler: 'index.handler' });
        expect(JSON.parse(String(saved[0].env))).toEqual({ MODE: 'edge' });
    });

    it('消息路由: refuses a topic filter that is not an MQTT filter, then routes all devices to the function', async () => {
        await open('router');
        expect(await screen.findByText('该实例暂无消息路由', {}, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getAllByRole('button', { name: '新建路由' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建路由' });
        const filter = within(dialog).getByRole('textbox', { name: /Topic过滤器/ });
        await userEvent.type(filter, 'sensor/#/data');
        // 消息来源 comes first, then 消息目标: the second 函数计算 is the target's.
        fireEvent.click(within(dialog).getAllByRole('radio', { name: '函数计算' })[1]);
        fireEvent.mouseDown(await within(dialog).findByRole('combobox', { name: /目标/ }));
        fireEvent.click(await screen.findByRole('option', { name: 'rule_fn' }, SLOW));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText(TOPIC_FILTER_TEXT)).toBeInTheDocument();
        await userEvent.clear(filter);
        await userEvent.type(filter, '/sys/+/+/thing/event/#');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功', {}, SLOW)).toBeInTheDocument();
        const row = (await screen.findByText('/sys/+/+/thing/event/#', {}, SLOW)).closest('tr') as HTMLElement;
        expect(row).toHaveTextContent('所有设备');
        expect(row).toHaveTextContent('函数计算：rule_fn');
        expect(await list(`/api/edge/instance/routes?instanceId=${instanceId}`)).toMatchObject([
            { sourceType: 'allDevices', targetType: 'function', targetName: 'rule_fn', qos: 0 },
        ]);
    });

    it('设置: shows the defaults and saves a new heartbeat interval', async () => {
        await open('setting');
        const section = (await screen.findByText('实例设置', {}, SLOW)).closest('section') as HTMLElement;
        expect(section).toHaveTextContent('60');
        fireEvent.click(within(section).getByRole('button', { name: '编辑设置' }));
        const dialog = await screen.findByRole('dialog', { name: '实例设置' });
        const heartbeat = within(dialog).getByRole('spinbutton', { name: /心跳间隔/ });
        fireEvent.change(heartbeat, { target: { value: '5' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('心跳间隔为10~600之间的整数（秒）')).toBeInTheDocument();
        fireEvent.change(heartbeat, { target: { value: '30' } });
        await dismissNotifications();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('保存成功，部署后生效', {}, SLOW)).toBeInTheDocument();
        const res = await platform.fetch(`/api/edge/instance/get?id=${instanceId}`);
        expect(((await res.json()) as { data: { heartbeatSeconds: number } }).data.heartbeatSeconds).toBe(30);
    });
});
