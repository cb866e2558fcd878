import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import subscriptions from '../../resources/subscriptions';
import userCenter from '../../resources/userCenter';
import {
    chooseOption,
    dismissNotifications,
    mswServer,
    ok,
    renderDefinitions,
    searchParam,
    shellHandlers,
} from './helpers';

/**
 * Server-side subscription as definitions (resources/subscriptions.tsx, resources/userCenter.tsx) against msw:
 * /subscription's two tabs, the subscription dialog (project, product, the consumer-group picker with its count,
 * the message type), delete with its confirmation, the consumer group's detail with 清空堆积, and the AccessKey whose
 * secret is shown once.
 */

const PROJECTS = [
    { code: 'P1', projectName: '城市照明改造项目' },
    { code: 'P2', projectName: '<b>园区</b>' },
];
const PRODUCTS = [
    { id: 'pk1', productId: 1, productKey: 'pk1', productName: '智能路灯_L1', projectCode: 'P1', subscribed: false },
    { id: 'pk2', productId: 2, productKey: 'pk2', productName: '井盖', projectCode: 'P1', subscribed: true },
];
const GROUPS = [
    {
        id: 1,
        name: 'default',
        projectCode: 'P1',
        projectName: '城市照明改造项目',
        dropped: 0,
        createTime: '2026-11-25 10:00:00',
    },
    {
        id: 7,
        name: 'lamps',
        projectCode: 'P1',
        projectName: '城市照明改造项目',
        dropped: 0,
        createTime: '2026-11-25 11:00:00',
    },
];
const SUB = {
    id: 3,
    productId: 2,
    productKey: 'pk2',
    productName: '井盖',
    projectCode: 'P1',
    projectName: '城市照明改造项目',
    msgType: 'AMQP',
    message: ['post'],
    groups: [{ id: 1, name: 'default' }],
    group: [1],
    createTime: '2026-11-25 12:00:00',
};

const sent: Array<{ path: string; body: URLSearchParams; query: URLSearchParams }> = [];
const record = async (request: Request) => {
    const url = new URL(request.url);
    sent.push({ path: url.pathname, body: new URLSearchParams(await request.text()), query: url.searchParams });
};
let subs: (typeof SUB)[] = [];
let backlog = 12;

beforeEach(() => {
    sent.length = 0;
    subs = [SUB];
    backlog = 12;
    mswServer.use(
        http.get('*/api/project/listAll', () => ok({ list: PROJECTS })),
        http.get('*/api/subscription/list', () => ok({ records: subs, total: subs.length })),
        http.get('*/api/subscription/products', () => ok(PRODUCTS)),
        http.get('*/api/consumerGroup/list', ({ request }) => {
            const q = new URL(request.url).searchParams;
            const rows = GROUPS.filter((g) => !q.get('projectCode') || g.projectCode === q.get('projectCode'));
            return ok({ records: rows, total: rows.length });
        }),
        http.post('*/api/subscription/save', async ({ request }) => {
            await record(request);
            return ok({ ...SUB, id: 4, productKey: 'pk1', productName: '智能路灯_L1' });
        }),
        http.post('*/api/subscription/delete', async ({ request }) => {
            await record(request);
            subs = [];
            return Response.json({ code: 200, msg: '删除成功！', data: null });
        }),
        http.get('*/api/consumerGroup/detail', () =>
            ok({
                ...GROUPS[1],
                subscriptions: [SUB],
                clients: [
                    {
                        id: 1,
                        clientId: 'consumer-a',
                        address: '10.0.0.5:50123',
                        connectedSince: '2026-11-25 12:30:00',
                        delivered: 120,
                        acknowledged: 118,
                    },
                ],
                online: 1,
                delivered: 120,
                acknowledged: 118,
                backlog,
                deliveryRate: 2.5,
            }),
        ),
        http.post('*/api/consumerGroup/clear', async ({ request }) => {
            await record(request);
            const cleared = backlog;
            backlog = 0;
            return ok({ cleared });
        }),
        http.get('*/api/accessKey/list', () =>
            ok({
                records: [
                    {
                        id: 1,
                        accessKey: 'LTAIkey1',
                        enabled: true,
                        status: '启用',
                        createTime: '2026-11-25 09:00:00',
                        lastUsedTime: null,
                    },
                ],
                total: 1,
            }),
        ),
        http.post('*/api/accessKey/create', () =>
            ok({
                id: 2,
                accessKey: 'LTAIkey2',
                accessSecret: 'S3cretShownOnce_abcdefghijklmn',
                enabled: true,
                status: '启用',
                createTime: '2026-11-25 13:00:00',
                lastUsedTime: null,
            }),
        ),
    );
});

describe('/subscription', () => {
    it('lists subscriptions and, in the second tab (?tab=groups), consumer groups; default is not deletable', async () => {
        renderDefinitions([subscriptions], '/subscription');
        const row = (await screen.findByText('井盖')).closest('tr')!;
        expect(within(row).getByText('pk2')).toBeInTheDocument();
        expect(within(row).getByText('AMQP')).toBeInTheDocument();
        expect(within(row).getByText('default')).toBeInTheDocument();
        expect(within(row).getByText('2026-11-25 12:00:00')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '消费者组列表' }));
        await waitFor(() => expect(searchParam('tab')).toBe('groups'));
        const lamps = (await screen.findByText('lamps')).closest('tr')!;
        expect(within(lamps).getByRole('button', { name: '删除 lamps' })).toBeInTheDocument();
        const def = screen.getByText('default').closest('tr')!;
        expect(within(def).queryByRole('button', { name: '删除 default' })).not.toBeInTheDocument();
        expect(within(def).getByRole('link', { name: '查看 default' })).toHaveAttribute(
            'href',
            '/consumerGroup/detail?id=1',
        );
    });

    it('新建订阅: the messages of SPEC.md, products already subscribed left out, groups picked with their count', async () => {
        renderDefinitions([subscriptions], '/subscription');
        await screen.findByText('井盖');
        fireEvent.click(screen.getAllByRole('button', { name: '新建订阅' })[0]);
        const dialog = await screen.findByRole('dialog', { name: '新建订阅' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(within(dialog).getByText(/请选择项目/)).toBeInTheDocument());
        await chooseOption(within(dialog).getByRole('combobox', { name: /所属项目/ }), '城市照明改造项目');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(within(dialog).getByText(/请选择产品/)).toBeInTheDocument());
        expect(within(dialog).getByText(/请选择消费者组/)).toBeInTheDocument();
        const product = await within(dialog).findByRole('combobox', { name: /^产品/ });
        fireEvent.mouseDown(product);
        const listbox = await screen.findByRole('listbox');
        expect(within(listbox).queryByRole('option', { name: '井盖' })).not.toBeInTheDocument();
        fireEvent.click(within(listbox).getByRole('option', { name: '智能路灯_L1' }));
        const picker = await within(dialog).findByRole('group', { name: '消费者组' });
        fireEvent.click(await within(picker).findByRole('checkbox', { name: '选择 lamps' }));
        expect(await within(dialog).findByText('已选择 1 个消费者组')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '设备上报消息' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(within(dialog).getByText(/请选择消息类型/)).toBeInTheDocument());
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '设备上报消息' }));
        await dismissNotifications();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        const save = sent.find((s) => s.path === '/api/subscription/save')!;
        expect(Object.fromEntries(save.body)).toEqual({
            projectCode: 'P1',
            productKey: 'pk1',
            group: '7',
            message: 'post',
        });
    });

    it('deletes a subscription by its ProductKey after the confirmation', async () => {
        renderDefinitions([subscriptions], '/subscription');
        const row = (await screen.findByText('井盖')).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '删除 井盖 的订阅' }));
        const confirm = await screen.findByRole('dialog');
        expect(within(confirm).getByText('确认删除该订阅吗？')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功！')).toBeInTheDocument();
        expect(sent.find((s) => s.path === '/api/subscription/delete')!.body.get('productKey')).toBe('pk2');
        expect(await screen.findByText('暂无订阅')).toBeInTheDocument();
    });
});

describe('/consumerGroup/detail', () => {
    it('shows the group, its consumers, figures and subscriptions; 清空堆积 asks first', async () => {
        renderDefinitions([subscriptions], '/consumerGroup/detail?id=7');
        const client = (await screen.findByText('consumer-a')).closest('tr')!;
        expect(within(client).getByText('10.0.0.5:50123')).toBeInTheDocument();
        expect(within(client).getByText('118')).toBeInTheDocument();
        expect(screen.getByText('堆积消息').parentElement).toHaveTextContent('12');
        expect(screen.getByText('投递速率（条/秒）').parentElement).toHaveTextContent('2.5');
        expect(screen.getAllByText('井盖').length).toBeGreaterThan(0);
        fireEvent.click(screen.getByRole('button', { name: '清空堆积' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('当前堆积 12 条');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已清空 12 条堆积消息')).toBeInTheDocument();
        expect(sent.find((s) => s.path === '/api/consumerGroup/clear')!.body.get('id')).toBe('7');
    });

    it('says the URL names no group without calling', async () => {
        renderDefinitions([subscriptions], '/consumerGroup/detail');
        expect(await screen.findByText(/缺少消费者组ID，请从消费者组列表进入/)).toBeInTheDocument();
    });
});

describe('/usercenter AccessKey', () => {
    it('shows a new AccessKey secret once in a dialog; the list never carries it', async () => {
        // The AccessKey tab of 个人中心, whose page record is the signed-in user.
        mswServer.use(...shellHandlers());
        renderDefinitions([userCenter], '/usercenter/accessKey');
        await screen.findByText('LTAIkey1');
        expect(screen.queryByText(/S3cret/)).not.toBeInTheDocument();
        fireEvent.click(screen.getAllByRole('button', { name: '创建访问密钥' })[0]);
        const dialog = await screen.findByRole('dialog', { name: 'AccessKey 创建成功' });
        expect(within(dialog).getByLabelText('AccessKey Secret')).toHaveTextContent('S3cretShownOnce_abcdefghijklmn');
        expect(within(dialog).getByText(/只在此时显示一次/)).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '我已保存' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(screen.queryByText(/S3cret/)).not.toBeInTheDocument();
    });
});
