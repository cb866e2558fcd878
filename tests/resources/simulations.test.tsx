import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import simulations from '../../resources/simulations';
import { chooseOption, dismissNotification, fail, mswServer, ok, renderDefinitions } from './helpers';

/**
 * Device simulation as one definition (resources/simulations.tsx) at /monitor/imitate, against msw: the list with
 * its figures and links, 新建模拟 (product, its devices in a picker, new sim devices, interval, random or fixed
 * values), start, stop and delete with their confirmations.
 */

interface Sim {
    id: number;
    productId: number;
    productKey: string;
    productName: string;
    deviceCount: number;
    firstDeviceId: number | null;
    firstDeviceName: string | null;
    intervalSeconds: number;
    mode: 'random' | 'fixed';
    running: boolean;
    connected: number;
    messagesSent: number;
    createTime: string;
}

const PRODUCTS = [
    { productId: 1, productKey: 'pk1', productName: '智能路灯_L1', nodeType: 0 },
    { productId: 2, productKey: 'pk2', productName: '<b>井盖</b>', nodeType: 0 },
];
const DEVICES = [
    { deviceId: 11, deviceName: 'SL-0001', productKey: 'pk1', status: 'ONLINE' },
    { deviceId: 12, deviceName: 'SL-0002', productKey: 'pk1', status: 'OFFLINE' },
    { deviceId: 21, deviceName: 'MC-0001', productKey: 'pk2', status: 'INACTIVE' },
];

let sims: Sim[] = [];
let listCalls = 0;
const sent: Array<{ path: string; body: URLSearchParams; query: URLSearchParams }> = [];

function sim(id: number, over: Partial<Sim> = {}): Sim {
    return {
        id,
        productId: 1,
        productKey: 'pk1',
        productName: '智能路灯_L1',
        deviceCount: 3,
        firstDeviceId: 11,
        firstDeviceName: 'SL-0001',
        intervalSeconds: 5,
        mode: 'random',
        running: true,
        connected: 2,
        messagesSent: 120,
        createTime: '2026-11-25 10:00:00',
        ...over,
    };
}

const record = async (request: Request) => {
    const url = new URL(request.url);
    const entry = { path: url.pathname, body: new URLSearchParams(await request.text()), query: url.searchParams };
    sent.push(entry);
    return entry;
};

const handlers = () => [
    http.get('*/api/simulation/list', ({ request }) => {
        listCalls++;
        const params = new URL(request.url).searchParams;
        const n = Number(params.get('pageNumber') ?? 1);
        const size = Number(params.get('pageSize') ?? 10);
        return ok({
            records: sims.slice((n - 1) * size, n * size),
            total: sims.length,
            running: sims.filter((s) => s.running).length,
        });
    }),
    http.get('*/api/product/list-product', () => ok({ list: PRODUCTS })),
    http.get('*/api/device/list', ({ request }) => {
        const params = new URL(request.url).searchParams;
        const rows = DEVICES.filter((d) => !params.get('productKey') || d.productKey === params.get('productKey'));
        return Response.json({ code: 0, msg: 'success', data: { records: rows, total: rows.length } });
    }),
    http.post('*/api/simulation/save', async ({ request }) => {
        const { body } = await record(request);
        if (body.get('intervalSeconds') === '99') return fail('上报间隔须为1~3600秒的整数');
        sims.unshift(sim(9, { deviceCount: 2, connected: 0, messagesSent: 0 }));
        return ok({ id: 9, running: true });
    }),
    http.post('*/api/simulation/start', async ({ request }) => {
        const { body } = await record(request);
        sims = sims.map((s) => (String(s.id) === body.get('id') ? { ...s, running: true } : s));
        return ok({ id: Number(body.get('id')), running: true });
    }),
    http.post('*/api/simulation/stop', async ({ request }) => {
        const { body } = await record(request);
        sims = sims.map((s) => (String(s.id) === body.get('id') ? { ...s, running: false, connected: 0 } : s));
        return ok({ id: Number(body.get('id')), running: false });
    }),
    http.delete('*/api/simulation/delete', async ({ request }) => {
        const { query } = await record(request);
        sims = sims.filter((s) => String(s.id) !== query.get('id'));
        return ok(null);
    }),
];

const rowOf = (text: string) => screen.getByText(text, { selector: 'a' }).closest('tr')!;

beforeEach(() => {
    sims = [
        sim(1),
        sim(2, {
            running: false,
            connected: 0,
            messagesSent: 45,
            firstDeviceId: 12,
            firstDeviceName: 'SL-0002',
            mode: 'fixed',
        }),
    ];
    sent.length = 0;
    listCalls = 0;
    mswServer.use(...handlers());
});

describe('/monitor/imitate', () => {
    it('lists simulations: product, devices with a link to the first one, interval, mode, state, online, messages', async () => {
        renderDefinitions([simulations], '/monitor/imitate');
        await screen.findByText('SL-0001');
        const running = rowOf('SL-0001');
        expect(within(running).getByText('智能路灯_L1')).toBeInTheDocument();
        expect(within(running).getByText('5 秒')).toBeInTheDocument();
        expect(within(running).getByText('随机取值')).toBeInTheDocument();
        expect(within(running).getByText('运行中')).toBeInTheDocument();
        expect(within(running).getByText('2 / 3')).toBeInTheDocument();
        expect(within(running).getByText('120')).toBeInTheDocument();
        expect(within(running).getByRole('link', { name: 'SL-0001' })).toHaveAttribute(
            'href',
            '/devInstanceDetail/1/11',
        );
        // 启动 only when stopped, 停止 only when running.
        expect(within(running).queryByRole('button', { name: '启动' })).not.toBeInTheDocument();
        expect(within(running).getByRole('button', { name: '停止' })).toBeInTheDocument();
        const stopped = rowOf('SL-0002');
        expect(within(stopped).getByText('已停止')).toBeInTheDocument();
        expect(within(stopped).getByText('固定取值')).toBeInTheDocument();
        expect(within(stopped).getByRole('button', { name: '启动' })).toBeInTheDocument();
        expect(within(stopped).queryByRole('button', { name: '停止' })).not.toBeInTheDocument();
        // Figures: 模拟总数 2, 运行中 1.
        expect(screen.getByText('模拟总数').parentElement).toHaveTextContent('2');
        expect(screen.getByText('运行中', { selector: ':not(.MuiChip-label)' }).parentElement).toHaveTextContent('1');
    });

    it('re-reads the list by itself while on screen (live figures)', async () => {
        renderDefinitions([simulations], '/monitor/imitate');
        await screen.findByText('120');
        sims[0] = { ...sims[0], messagesSent: 133 };
        expect(await screen.findByText('133', {}, { timeout: 5_000 })).toBeInTheDocument();
        expect(listCalls).toBeGreaterThanOrEqual(2);
    }, 10_000);

    it('says so when there is none, with 新建模拟 at hand', async () => {
        sims = [];
        renderDefinitions([simulations], '/monitor/imitate');
        expect(await screen.findByText('暂无模拟，点击“新建模拟”让设备上线上报')).toBeInTheDocument();
        expect(screen.getAllByRole('button', { name: '新建模拟' }).length).toBeGreaterThanOrEqual(1);
    });

    it('新建模拟: product, a chosen device and new ones, interval, fixed values', async () => {
        renderDefinitions([simulations], '/monitor/imitate');
        await screen.findByText('SL-0001');
        fireEvent.click(screen.getAllByRole('button', { name: '新建模拟' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建模拟' });
        const product = await within(dialog).findByRole('combobox', { name: /产品/ });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请选择产品')).toBeInTheDocument();
        // No device picker before a product is chosen.
        expect(within(dialog).queryByRole('group', { name: '选择已有设备' })).not.toBeInTheDocument();
        await chooseOption(product, '智能路灯_L1');
        const picker = await within(dialog).findByRole('group', { name: '选择已有设备' });
        await within(picker).findByText('SL-0002');
        expect(within(picker).queryByText('MC-0001')).not.toBeInTheDocument();
        fireEvent.click(within(picker).getByRole('checkbox', { name: '选择 12' }));
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /新建模拟设备数量/ }), {
            target: { value: '1' },
        });
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /上报间隔/ }), { target: { value: '10' } });
        fireEvent.click(within(dialog).getByRole('radio', { name: '固定取值' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('固定取值时请至少填写一个属性的值')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '添加属性' }));
        fireEvent.change(within(dialog).getByRole('textbox', { name: '属性标识符' }), {
            target: { value: 'Brightness' },
        });
        fireEvent.change(within(dialog).getByRole('textbox', { name: '值' }), { target: { value: '50' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('模拟已创建')).toBeInTheDocument();
        const save = sent.find((s) => s.path === '/api/simulation/save')!;
        expect(Object.fromEntries(save.body)).toEqual({
            productKey: 'pk1',
            deviceIds: '12',
            amount: '1',
            intervalSeconds: '10',
            mode: 'fixed',
            fixedValues: '{"Brightness":"50"}',
            events: 'false',
            start: 'true',
        });
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新建模拟' })).not.toBeInTheDocument());
        expect(await screen.findAllByText('SL-0001')).toHaveLength(2);
    });

    it("keeps the dialog open with the server's message when it refuses", async () => {
        renderDefinitions([simulations], '/monitor/imitate');
        await screen.findByText('SL-0001');
        fireEvent.click(screen.getAllByRole('button', { name: '新建模拟' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建模拟' });
        await chooseOption(await within(dialog).findByRole('combobox', { name: /产品/ }), '智能路灯_L1');
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /新建模拟设备数量/ }), {
            target: { value: '2' },
        });
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /上报间隔/ }), { target: { value: '99' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('上报间隔须为1~3600秒的整数')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '新建模拟' })).toBeInTheDocument();
    });

    it('stops after its confirmation, starts, and deletes after its confirmation', async () => {
        renderDefinitions([simulations], '/monitor/imitate');
        await screen.findByText('SL-0001');
        fireEvent.click(within(rowOf('SL-0001')).getByRole('button', { name: '停止' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('确定停止该模拟吗？其 3 台设备将下线。');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('模拟已停止')).toBeInTheDocument();
        await dismissNotification('模拟已停止');
        expect(Object.fromEntries(sent.at(-1)!.body)).toEqual({ id: '1' });
        await waitFor(() => expect(within(rowOf('SL-0001')).getByRole('button', { name: '启动' })).toBeInTheDocument());

        fireEvent.click(within(rowOf('SL-0002')).getByRole('button', { name: '启动' }));
        expect(await screen.findByText('模拟已启动')).toBeInTheDocument();
        await dismissNotification('模拟已启动');
        expect(sent.at(-1)).toMatchObject({ path: '/api/simulation/start' });
        expect(Object.fromEntries(sent.at(-1)!.body)).toEqual({ id: '2' });

        fireEvent.click(within(rowOf('SL-0002')).getByRole('button', { name: '删除' }));
        const ask = await screen.findByRole('dialog');
        expect(ask).toHaveTextContent('确定删除产品“智能路灯_L1”的这个模拟吗？模拟将停止，其设备保留在设备列表中。');
        fireEvent.click(within(ask).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        expect(sent.at(-1)!.path).toBe('/api/simulation/delete');
        expect(sent.at(-1)!.query.get('id')).toBe('2');
        await waitFor(() => expect(screen.queryByText('SL-0002')).not.toBeInTheDocument());
    });
});
