import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import messageLog, { methodName } from '../../resources/messageLog';
import products from '../../resources/products';
import { bodyRows, chooseOption, currentLocation, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * The message log /log as one definition (resources/messageLog.tsx): the searchable product selector (its first
 * product chosen), tabs 上行消息 / 下行消息 / 告警消息 in ?tab=, filters (device name, time range, message id, and
 * uplink's 消息类型) and pages in the URL, 查看 showing a payload, the alert tab's empty state. msw answers
 * /api/log/* in the device family's envelope (code 0).
 */

const PRODUCTS = [
    { productId: 1, productName: '智能路灯', productKey: 'pkLamp' },
    { productId: 2, productName: '<b>门禁</b>控制器', productKey: 'pkDoor' },
];

interface Message {
    id: string;
    time: string;
    deviceName: string;
    method: string;
    topic: string;
    messageId: string;
    payload: string;
    direction: 'up' | 'down' | 'status';
    productKey: string;
}

function message(i: number, over: Partial<Message> = {}): Message {
    return {
        id: String(i),
        time: `2026-11-25 10:${String(59 - (i % 60)).padStart(2, '0')}:00`,
        deviceName: `lamp${String(i % 3).padStart(2, '0')}`,
        method: 'thing.event.property.post',
        topic: `/sys/pkLamp/lamp${String(i % 3).padStart(2, '0')}/thing/event/property/post`,
        messageId: String(i),
        payload: JSON.stringify({ Brightness: i }),
        direction: 'up',
        productKey: 'pkLamp',
        ...over,
    };
}

let rows: Message[] = [];
let productList = PRODUCTS;
const asked: URLSearchParams[] = [];
const productsAsked: URLSearchParams[] = [];

const code0 = (data: unknown) => HttpResponse.json({ code: 0, msg: 'success', data });

const handlers = () => [
    http.get('*/api/product/list-product', ({ request }) => {
        productsAsked.push(new URL(request.url).searchParams);
        return ok({ list: productList });
    }),
    http.get('*/api/log/messages', ({ request }) => {
        const p = new URL(request.url).searchParams;
        asked.push(p);
        if (!p.get('productKey')) return HttpResponse.json({ code: 1, msg: '请选择产品' }, { status: 400 });
        const start = Number(p.get('startTime') ?? 0);
        const found = rows.filter(
            (m) =>
                m.productKey === p.get('productKey') &&
                m.direction === (p.get('direction') ?? 'up') &&
                (!p.get('deviceName') || m.deviceName === p.get('deviceName')) &&
                (!p.get('messageId') || m.messageId === p.get('messageId')) &&
                (!start || Number(m.id) >= 0),
        );
        const n = Number(p.get('pageNumber') ?? 1);
        const size = Number(p.get('pageSize') ?? 10);
        return code0({ records: found.slice((n - 1) * size, n * size), total: found.length });
    }),
    http.get('*/api/log/alerts', () => code0({ records: [], total: 0 })),
];

const last = () => asked[asked.length - 1];
const render = (url = '/log') => renderDefinitions([messageLog, products], url);

beforeEach(() => {
    asked.length = 0;
    productsAsked.length = 0;
    productList = PRODUCTS;
    rows = [
        ...Array.from({ length: 23 }, (_, i) => message(i + 1)),
        message(100, {
            method: 'thing.service.property.set',
            topic: '/sys/pkLamp/lamp01/thing/service/property/set',
            messageId: '8812',
            deviceName: 'lamp01',
            direction: 'down',
            payload: JSON.stringify({ direction: 'down', id: '8812', params: { Brightness: 40 } }),
        }),
        message(101, { method: 'device.status', direction: 'status', payload: '{"status":"online"}' }),
        message(200, {
            productKey: 'pkDoor',
            deviceName: 'door01',
            topic: '/sys/pkDoor/door01/thing/event/property/post',
        }),
    ];
    mswServer.use(...handlers());
});

describe('日志查询 /log', () => {
    it('loads the products on entering (those that reported last first), starts on the first, and lists its uplink messages newest first', async () => {
        render();
        expect((await screen.findAllByText('lamp01', {}, { timeout: 8000 })).length).toBeGreaterThan(0);
        expect(screen.getByRole('tab', { name: '上行消息', selected: true })).toBeInTheDocument();
        expect(screen.getByRole('tab', { name: '下行消息' })).toBeInTheDocument();
        expect(screen.getByRole('tab', { name: '告警消息' })).toBeInTheDocument();
        expect(screen.getByRole('combobox', { name: '产品' })).toHaveValue('智能路灯');
        // The picker asks for the products whose devices reported last first: the first one is where messages are.
        expect(productsAsked.map((p) => p.get('orderBy'))).toContain('active');
        expect(Object.fromEntries(last())).toEqual({
            productKey: 'pkLamp',
            direction: 'up',
            pageNumber: '1',
            pageSize: '10',
        });
        // Nothing was asked before the product was known (the call needs it).
        expect(asked.every((p) => p.get('productKey'))).toBe(true);
        expect(bodyRows()).toHaveLength(10);
        const first = bodyRows()[0];
        expect(within(first).getByText('属性上报')).toBeInTheDocument();
        expect(within(first).getByText('/sys/pkLamp/lamp01/thing/event/property/post')).toBeInTheDocument();
        // The breadcrumb.
        expect(screen.getByRole('navigation', { name: 'breadcrumb' })).toHaveTextContent(/概览.*日志查询/);
    });

    it('finds a product by typing its name (names are text, not markup) and keeps it in the URL', async () => {
        render();
        const select = await screen.findByRole('combobox', { name: '产品' });
        await waitFor(() => expect(select).toHaveValue('智能路灯'));
        await userEvent.clear(select);
        await userEvent.type(select, '门禁');
        const option = await screen.findByRole('option', { name: '<b>门禁</b>控制器' });
        expect(screen.queryByRole('option', { name: '智能路灯' })).not.toBeInTheDocument();
        await userEvent.click(option);
        await waitFor(() => expect(searchParam('productKey')).toBe('pkDoor'));
        expect(await screen.findByText('door01')).toBeInTheDocument();
        expect(last().get('productKey')).toBe('pkDoor');
    });

    it('keeps what a person typed into 产品 before the products loaded, when the page picks its first product', async () => {
        let answer!: () => void;
        const loaded = new Promise<void>((resolve) => (answer = resolve));
        mswServer.use(
            http.get('*/api/product/list-product', async () => {
                await loaded;
                return ok({ list: PRODUCTS });
            }),
        );
        render();
        const select = await screen.findByRole('combobox', { name: '产品' });
        await userEvent.type(select, '门禁');
        answer();
        // The page's pick arrives (its messages load) and the typed text stays, its matches listed.
        expect(await screen.findByRole('option', { name: '<b>门禁</b>控制器' })).toBeInTheDocument();
        await waitFor(() => expect(last()?.get('productKey')).toBe('pkLamp'));
        expect(select).toHaveValue('门禁');
        await userEvent.click(screen.getByRole('option', { name: '<b>门禁</b>控制器' }));
        await waitFor(() => expect(searchParam('productKey')).toBe('pkDoor'));
        expect(select).toHaveValue('<b>门禁</b>控制器');
    });

    it('filters by device name, time range and message id, each in the URL and the call', async () => {
        render('/log?productKey=pkLamp');
        await screen.findAllByText('lamp01', {}, { timeout: 8000 });
        fireEvent.change(screen.getByRole('textbox', { name: '设备名称' }), { target: { value: 'lamp02' } });
        await waitFor(() => expect(last().get('deviceName')).toBe('lamp02'));
        expect(searchParam('deviceName')).toBe('lamp02');
        await waitFor(() => expect(bodyRows().every((r) => within(r).queryByText('lamp02'))).toBe(true));

        const group = await screen.findByRole('group', { name: '时间' });
        fireEvent.change(await within(group).findByLabelText('开始时间'), { target: { value: '2026-11-25 10:00' } });
        const start = new Date(2026, 10, 25, 10, 0, 0, 0).getTime();
        await waitFor(() => expect(last().get('startTime')).toBe(String(start)));
        fireEvent.change(within(group).getByLabelText('结束时间'), { target: { value: '2026-11-25 11:30' } });
        const end = new Date(2026, 10, 25, 11, 30, 59, 999).getTime();
        await waitFor(() => expect(last().get('endTime')).toBe(String(end)));
        expect(searchParam('startTime')).toBe(String(start));
        expect(searchParam('endTime')).toBe(String(end));
        expect(within(group).getByLabelText('开始时间')).toHaveValue('2026-11-25 10:00');

        fireEvent.change(screen.getByRole('textbox', { name: '消息ID' }), { target: { value: '5' } });
        await waitFor(() => expect(last().get('messageId')).toBe('5'));
        expect(Object.fromEntries(last())).toMatchObject({
            productKey: 'pkLamp',
            deviceName: 'lamp02',
            direction: 'up',
        });
    });

    it('pages through the messages with the page in the URL (upPage), and shows status changes as 消息类型 上下线', async () => {
        render('/log?productKey=pkLamp');
        await screen.findAllByText('lamp01', {}, { timeout: 8000 });
        fireEvent.click(screen.getByRole('button', { name: /^(第 3 页|3)$/ }));
        await waitFor(() => expect(last().get('pageNumber')).toBe('3'));
        expect(searchParam('upPage')).toBe('3');
        await waitFor(() => expect(bodyRows()).toHaveLength(3));

        await chooseOption(screen.getByRole('combobox', { name: '消息类型' }), '上下线');
        await waitFor(() => expect(last().get('direction')).toBe('status'));
        expect(searchParam('kind')).toBe('status');
        await waitFor(() => expect(within(bodyRows()[0]).getByText('上下线')).toBeInTheDocument());
    });

    it('switches to 下行消息 (?tab=down) keeping the product, and 查看 shows the payload indented until 关闭', async () => {
        render('/log?productKey=pkLamp');
        await screen.findAllByText('lamp01', {}, { timeout: 8000 });
        fireEvent.click(screen.getByRole('tab', { name: '下行消息' }));
        await waitFor(() => expect(searchParam('tab')).toBe('down'));
        await waitFor(() => expect(last().get('direction')).toBe('down'));
        expect(last().get('productKey')).toBe('pkLamp');
        const row = (await screen.findByText('8812')).closest('tr')!;
        expect(within(row).getByText('属性设置')).toBeInTheDocument();
        fireEvent.click(within(row).getByRole('button', { name: '查看' }));
        const dialog = await screen.findByRole('dialog', { name: '消息内容（8812）' });
        expect(await within(dialog).findByText('/sys/pkLamp/lamp01/thing/service/property/set')).toBeInTheDocument();
        const pre = await within(dialog).findByLabelText('消息内容');
        expect(pre.textContent).toBe(
            JSON.stringify({ direction: 'down', id: '8812', params: { Brightness: 40 } }, null, 2),
        );
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    });

    it('says so when a product has no downlink messages, and the alert tab shows its honest empty state', async () => {
        render('/log?productKey=pkDoor&tab=down');
        expect(await screen.findByText('暂无下行消息')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '告警消息' }));
        expect(await screen.findByText(/暂无告警消息/)).toBeInTheDocument();
        expect(asked.every((p) => p.get('direction') === 'down')).toBe(true);
        expect(currentLocation.search).toContain('tab=alert');
    });

    it('without any product, says there is none to choose and asks for no messages', async () => {
        productList = [];
        render();
        expect(await screen.findByText('暂无可选的产品')).toBeInTheDocument();
        expect(asked).toHaveLength(0);
    });

    it('shows the platform refusal in place with 重试', async () => {
        mswServer.use(
            http.get('*/api/log/messages', () =>
                HttpResponse.json({ code: 1, msg: '开始时间不能晚于结束时间' }, { status: 400 }),
            ),
        );
        render('/log?productKey=pkLamp&startTime=2000&endTime=1000');
        expect(await screen.findByText('加载失败：开始时间不能晚于结束时间')).toBeInTheDocument();
        expect(screen.getByRole('button', { name: '重试' })).toBeInTheDocument();
    });

    it('names each method in words', () => {
        expect(methodName('thing.event.LampFault.post')).toBe('事件上报 LampFault');
        expect(methodName('thing.service.SetSchedule')).toBe('服务调用 SetSchedule');
        expect(methodName('thing.service.property.set_reply')).toBe('属性设置应答');
        expect(methodName('user.message')).toBe('自定义Topic');
        expect(methodName('thing.model.up_raw')).toBe('透传数据');
    });
});
