import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import BuildIcon from '@mui/icons-material/Build';
import * as yup from 'yup';
import { defineResource, type AnyPaths, type Action } from '../../src/engine/types';
import {
    chooseOption,
    currentLocation,
    dismissNotification,
    mswServer,
    ok,
    renderDefinitions,
    searchParam,
} from './helpers';

/**
 * The worked example of docs/adding-a-resource.md, section 10 "Worked example: maintenance work orders (维保工单)",
 * proven to work. The two regions between `docs:begin` and `docs:end` are the guide's two code blocks (the schema
 * file and the definition file) without their import lines; the first test fails when they drift apart.
 */

// docs:begin schema
/** 紧急程度 of a work order. */
export const WORK_ORDER_LEVELS = [
    { id: 1, name: '紧急' },
    { id: 2, name: '一般' },
];

export const workOrderSchema = yup.object({
    title: yup.string().trim().required('请输入工单标题').max(50, '工单标题不得超过50个字符'),
    siteId: yup.number().typeError('请选择站点').required('请选择站点'),
    level: yup.number().required('请选择紧急程度'),
    remark: yup.string().trim().max(200, '描述不得超过200个字符'),
});

export const assignSchema = yup.object({ engineer: yup.string().required('请选择维保人员') });

export const logSchema = yup.object({
    kind: yup.string().required(),
    content: yup.string().trim().required('请输入处理内容').max(200, '处理内容不得超过200个字符'),
});
// docs:end

// docs:begin definition
const STATUSES = [
    { id: 'NEW', name: '待派单', color: 'warning' as const },
    { id: 'DOING', name: '处理中', color: 'info' as const },
    { id: 'DONE', name: '已完成', color: 'success' as const },
];

const LOG_KINDS = [
    { id: 'CHECK', name: '巡检' },
    { id: 'REPAIR', name: '维修' },
];

/** 派单: a form in a dialog over a custom call; only a new order is assigned. */
const assign: Action = {
    kind: 'form',
    label: '派单',
    when: ({ record }) => record.status === 'NEW',
    fields: [
        [
            'engineer',
            {
                label: '维保人员',
                input: 'select',
                required: true,
                choicesFrom: { call: 'engineers', optionValue: 'name', optionText: 'name' },
            },
        ],
    ],
    schema: assignSchema,
    submit: {
        call: 'assign',
        params: ({ record, values }) => ({ orderId: record.orderId, engineer: values?.engineer }),
    },
    success: '派单成功',
};

/** 完成: a call after a confirmation; only an order being handled is finished. */
const finish: Action = {
    kind: 'call',
    label: '完成',
    when: ({ record }) => record.status === 'DOING',
    call: { call: 'finish', params: ({ record }) => ({ orderIds: [record.orderId] }) },
    confirm: ({ record }) => `确定工单“${String(record.title)}”已处理完成？`,
    success: '工单已完成',
};

/** 编辑: the record's own form; the site is shown but locked (perView.edit). */
const edit: Action = {
    kind: 'form',
    label: '编辑',
    title: '编辑工单',
    mode: 'edit',
    fields: ['title', 'siteId', 'level', 'remark'],
    schema: workOrderSchema,
    defaults: ({ record }) => ({ ...record }),
    submit: { call: 'update' },
    success: '修改成功',
};

const workOrders = defineResource<AnyPaths>({
    name: 'workOrders',
    label: '维保工单',
    path: 'workOrder',
    icon: BuildIcon,
    idField: 'orderId',
    recordRepresentation: 'title',
    menu: { label: '维保工单', section: '设备接入', order: 9, icon: BuildIcon, related: ['/workOrderDetail'] },
    fields: {
        orderNo: {
            label: '工单编号',
            type: 'link',
            readOnly: true,
            linkTo: (r) => `/workOrderDetail/${String(r.orderId)}/info`,
        },
        title: { label: '工单标题', required: true, maxLength: 50 },
        siteId: {
            label: '站点',
            input: 'select',
            required: true,
            views: ['create', 'edit'],
            choicesFrom: { call: 'sites', optionValue: 'siteId', optionText: 'siteName' },
            perView: { edit: { locked: true } },
        },
        siteName: { label: '站点', readOnly: true },
        level: { label: '紧急程度', type: 'select', input: 'radio', choices: WORK_ORDER_LEVELS, defaultValue: 2 },
        status: { label: '状态', type: 'status', choices: STATUSES, readOnly: true },
        engineer: { label: '维保人员', readOnly: true },
        remark: { label: '描述', type: 'longText', views: ['show', 'create', 'edit'], maxLength: 200 },
        createTime: { label: '创建时间', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        finishTime: { label: '完成时间', type: 'datetime', readOnly: true, views: ['show'] },
    },
    schema: workOrderSchema,
    views: { show: false, edit: false },
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 50],
        columns: ['orderNo', 'title', 'siteName', 'level', 'status', 'engineer', 'createTime'],
        filters: [
            { source: 'q', label: '工单标题', alwaysOn: true },
            { source: 'status', label: '状态', input: 'select', choices: STATUSES },
        ],
        counters: {
            items: [
                { label: '工单总数', value: 'total' },
                { label: '待派单', value: 'newCount' },
            ],
        },
        show: false,
        edit: false,
        rowActions: [
            { kind: 'link', label: '查看', to: ({ record }) => `/workOrderDetail/${String(record.orderId)}/info` },
            edit,
            assign,
            finish,
        ],
        deleteConfirmOf: (r) => `确定删除工单“${String(r.title)}”吗？`,
        bulkActions: [
            {
                kind: 'call',
                label: '批量完成',
                disabled: ({ selected }) =>
                    selected?.some((r) => r.status !== 'DOING') ? '只能完成处理中的工单' : false,
                call: { call: 'finish', params: ({ selected }) => ({ orderIds: selected?.map((r) => r.orderId) }) },
                success: (_answer, { selected }) => `已完成 ${selected?.length ?? 0} 个工单`,
            },
        ],
        createInDialog: true,
        createLabel: '新建工单',
        empty: '暂无工单',
    },
    messages: { created: '创建成功', updated: '修改成功', deleted: '删除成功' },
    pages: [
        {
            path: '/workOrderDetail/:orderId/*',
            title: '工单详情',
            back: { label: '维保工单', to: '/workOrder' },
            record: {
                call: 'getOne',
                params: ({ route }) => ({ id: route.orderId }),
                missing: ({ route }) => (/^\d+$/.test(route.orderId ?? '') ? undefined : '工单编号无效'),
                notFound: ({ route }) => `未找到编号为 ${route.orderId} 的工单`,
                notFoundTitle: '工单不存在',
            },
            header: {
                title: ({ record }) => String(record.title ?? ''),
                status: 'status',
                fields: [['orderNo', { label: '工单编号', copy: true }], 'siteName', 'engineer'],
                actions: [
                    assign,
                    finish,
                    {
                        kind: 'call',
                        label: '删除',
                        color: 'error',
                        call: { call: 'delete' },
                        confirm: '确定删除此工单吗？',
                        success: '删除成功',
                        then: () => '/workOrder',
                    },
                ],
            },
            tabs: [
                {
                    key: 'info',
                    label: '基本信息',
                    sections: [
                        {
                            kind: 'fields',
                            title: '工单信息',
                            fields: [
                                'orderNo',
                                'title',
                                'siteName',
                                'level',
                                'status',
                                'engineer',
                                'remark',
                                'createTime',
                            ],
                            actions: [edit],
                        },
                    ],
                },
                {
                    key: 'logs',
                    label: '处理记录',
                    sections: [
                        {
                            kind: 'counters',
                            title: '处理统计',
                            call: { call: 'logStats', params: ({ route }) => ({ orderId: route.orderId }) },
                            items: [
                                { label: '记录数', value: 'count' },
                                { label: '累计工时', value: 'hours' },
                            ],
                        },
                        {
                            kind: 'list',
                            title: '处理记录',
                            list: {
                                source: { call: 'logs', params: ({ route }) => ({ orderId: route.orderId }) },
                                columns: [
                                    ['logTime', { label: '时间' }],
                                    ['kind', { label: '类型', type: 'select', choices: LOG_KINDS }],
                                    ['content', { label: '处理内容' }],
                                    ['operator', { label: '处理人' }],
                                ],
                                rowId: 'logId',
                                urlPrefix: 'log_',
                                perPage: 5,
                                filters: [{ source: 'kind', label: '类型', input: 'tabs', choices: LOG_KINDS }],
                                toolbar: [
                                    {
                                        kind: 'form',
                                        label: '添加记录',
                                        fields: [
                                            ['kind', { label: '类型', input: 'radio', choices: LOG_KINDS }],
                                            ['content', { label: '处理内容', input: 'textarea', required: true }],
                                        ],
                                        schema: logSchema,
                                        defaults: () => ({ kind: 'CHECK' }),
                                        submit: {
                                            call: 'addLog',
                                            params: ({ route, values }) => ({ orderId: route.orderId, ...values }),
                                        },
                                        success: '记录已添加',
                                    },
                                ],
                                empty: { text: '暂无处理记录' },
                            },
                        },
                    ],
                },
                {
                    key: 'acceptance',
                    label: '验收',
                    when: ({ record }) => record.status === 'DONE',
                    sections: [{ kind: 'fields', title: '验收信息', fields: ['engineer', 'finishTime'] }],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        idField: 'orderId',
        getList: {
            get: '/api/work-order/list',
            paging: ['pageNumber', 'pageSize'],
            filters: { q: 'title' },
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/work-order/get', params: (r) => ({ orderId: r.id }), read: 'data' },
        create: { post: '/api/work-order/save', read: 'data' },
        update: {
            post: '/api/work-order/update',
            params: (r) => ({ orderId: r.id, title: r.title, level: r.level, remark: r.remark ?? '' }),
        },
        delete: { delete: '/api/work-order/delete', params: (r) => ({ orderId: r.id }) },
        custom: {
            sites: { get: '/api/work-order/sites', read: 'data' },
            engineers: { get: '/api/work-order/engineers', read: 'data' },
            assign: { post: '/api/work-order/assign' },
            finish: { post: '/api/work-order/finish' },
            logs: {
                get: '/api/work-order/logs',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            logStats: { get: '/api/work-order/log-stats', read: 'data' },
            addLog: { post: '/api/work-order/log/add' },
        },
    },
});

export default workOrders;
// docs:end

// The platform the example talks to, in memory.

interface Order {
    orderId: number;
    orderNo: string;
    title: string;
    siteId: number;
    siteName: string;
    level: number;
    status: 'NEW' | 'DOING' | 'DONE';
    engineer: string;
    remark: string;
    createTime: string;
    finishTime: string;
}

interface Log {
    logId: number;
    orderId: number;
    logTime: string;
    kind: string;
    content: string;
    operator: string;
}

const SITES = [
    { siteId: 1, siteName: '一号泵站' },
    { siteId: 2, siteName: '二号变电所' },
];

let orders: Order[] = [];
let logs: Log[] = [];
const lists: URLSearchParams[] = [];
const sent: Array<{ path: string; body: URLSearchParams }> = [];

function order(i: number, over: Partial<Order> = {}): Order {
    return {
        orderId: i,
        orderNo: `WO-${String(i).padStart(4, '0')}`,
        title: `工单${i}`,
        siteId: 1,
        siteName: '一号泵站',
        level: 2,
        status: 'NEW',
        engineer: '',
        remark: '',
        createTime: '2025-05-01 09:00:00',
        finishTime: '',
        ...over,
    };
}

function paged<T>(rows: T[], params: URLSearchParams) {
    const n = Number(params.get('pageNumber') ?? 1);
    const size = Number(params.get('pageSize') ?? 10);
    return rows.slice((n - 1) * size, n * size);
}

const body = async (request: Request) => new URLSearchParams(await request.text());
const query = (request: Request) => new URL(request.url).searchParams;
const find = (id: string | null) => orders.find((o) => String(o.orderId) === id);

const handlers = () => [
    http.get('*/api/work-order/list', ({ request }) => {
        const params = query(request);
        lists.push(params);
        const rows = orders.filter(
            (o) =>
                (!params.get('title') || o.title.includes(params.get('title')!)) &&
                (!params.get('status') || o.status === params.get('status')),
        );
        return ok({
            records: paged(rows, params),
            total: rows.length,
            newCount: orders.filter((o) => o.status === 'NEW').length,
        });
    }),
    http.get('*/api/work-order/get', ({ request }) => {
        const found = find(query(request).get('orderId'));
        return found ? ok(found) : HttpResponse.json({ code: 404, msg: '工单不存在' }, { status: 404 });
    }),
    http.get('*/api/work-order/sites', () => ok(SITES)),
    http.get('*/api/work-order/engineers', () => ok([{ name: '张工' }, { name: '李工' }])),
    http.post('*/api/work-order/save', async ({ request }) => {
        const form = await body(request);
        sent.push({ path: 'save', body: form });
        const site = SITES.find((s) => String(s.siteId) === form.get('siteId'))!;
        const created = order(orders.length + 1, {
            title: form.get('title')!,
            siteId: site.siteId,
            siteName: site.siteName,
            level: Number(form.get('level')),
            remark: form.get('remark') ?? '',
        });
        orders.unshift(created);
        return ok(created);
    }),
    http.post('*/api/work-order/update', async ({ request }) => {
        const form = await body(request);
        sent.push({ path: 'update', body: form });
        const found = find(form.get('orderId'))!;
        found.title = form.get('title')!;
        found.level = Number(form.get('level'));
        found.remark = form.get('remark') ?? '';
        return ok(found);
    }),
    http.delete('*/api/work-order/delete', ({ request }) => {
        const id = query(request).get('orderId');
        sent.push({ path: 'delete', body: query(request) });
        orders = orders.filter((o) => String(o.orderId) !== id);
        return ok(null);
    }),
    http.post('*/api/work-order/assign', async ({ request }) => {
        const form = await body(request);
        sent.push({ path: 'assign', body: form });
        Object.assign(find(form.get('orderId'))!, { status: 'DOING', engineer: form.get('engineer') });
        return ok(null);
    }),
    http.post('*/api/work-order/finish', async ({ request }) => {
        const form = await body(request);
        sent.push({ path: 'finish', body: form });
        for (const id of form.getAll('orderIds')) {
            Object.assign(find(id)!, { status: 'DONE', finishTime: '2025-05-03 18:00:00' });
        }
        return ok(null);
    }),
    http.get('*/api/work-order/logs', ({ request }) => {
        const params = query(request);
        lists.push(params);
        const rows = logs.filter(
            (l) =>
                String(l.orderId) === params.get('orderId') && (!params.get('kind') || l.kind === params.get('kind')),
        );
        return ok({ records: paged(rows, params), total: rows.length });
    }),
    http.get('*/api/work-order/log-stats', ({ request }) => {
        const mine = logs.filter((l) => String(l.orderId) === query(request).get('orderId'));
        return ok({ count: mine.length, hours: mine.length * 2 });
    }),
    http.post('*/api/work-order/log/add', async ({ request }) => {
        const form = await body(request);
        sent.push({ path: 'addLog', body: form });
        logs.unshift({
            logId: 100 + logs.length,
            orderId: Number(form.get('orderId')),
            logTime: '2025-05-02 10:00:00',
            kind: form.get('kind')!,
            content: form.get('content')!,
            operator: '张工',
        });
        return ok(null);
    }),
];

const SLOW = { timeout: 15_000 };
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const tableRows = (table = screen.getByRole('table')) => within(table).getAllByRole('row').slice(1);

beforeEach(() => {
    orders = Array.from({ length: 12 }, (_, i) =>
        order(i + 1, i % 3 === 1 ? { status: 'DOING', engineer: '张工' } : i % 3 === 2 ? { status: 'DONE' } : {}),
    );
    orders[0].title = '<b>水泵</b>异响';
    logs = Array.from({ length: 7 }, (_, i) => ({
        logId: i + 1,
        orderId: 2,
        logTime: `2025-05-0${(i % 9) + 1} 08:00:00`,
        kind: i % 2 ? 'REPAIR' : 'CHECK',
        content: `记录${i + 1}`,
        operator: '张工',
    }));
    lists.length = 0;
    sent.length = 0;
    mswServer.use(...handlers());
});

/** A fenced block of the guide, by the heading line just above it, without its import lines. */
function docBlock(title: string): string {
    const doc = readFileSync(resolve(process.cwd(), 'docs/adding-a-resource.md'), 'utf8');
    const at = doc.indexOf(title);
    expect(at, `docs/adding-a-resource.md has no "${title}"`).toBeGreaterThan(-1);
    const block = /```tsx?\n([\s\S]*?)```/.exec(doc.slice(at))![1];
    return block
        .split('\n')
        .filter((line) => !line.startsWith('import '))
        .join('\n')
        .trim();
}

function ownRegion(name: string): string {
    const source = readFileSync(resolve(process.cwd(), 'tests/resources/docsExample.test.tsx'), 'utf8');
    const begin = source.indexOf(`// docs:begin ${name}\n`);
    const end = source.indexOf('// docs:end', begin);
    return source.slice(begin + `// docs:begin ${name}\n`.length, end).trim();
}

describe('the guide and this test hold the same example', () => {
    it('has the schema file and the definition file of section 10 word for word', () => {
        expect(docBlock('`schemas/workOrder.ts`:')).toBe(ownRegion('schema'));
        expect(docBlock('`resources/workOrders.tsx`:')).toBe(ownRegion('definition'));
    });
});

describe('the list at /workOrder', () => {
    it('shows the rows with counters, names as text, and filters with the URL saying so', async () => {
        renderDefinitions([workOrders], '/workOrder');
        await screen.findByRole('table', {}, SLOW);
        await waitFor(() => expect(tableRows()).toHaveLength(10));
        expect(screen.getByRole('group', { name: '统计' })).toHaveTextContent('工单总数12待派单4');
        expect(screen.getByText('<b>水泵</b>异响')).toBeInTheDocument();
        expect(rowOf('WO-0002')).toHaveTextContent('处理中');

        await chooseOption(screen.getByRole('combobox', { name: '状态' }), '已完成');
        await waitFor(() => expect(searchParam('status')).toBe('DONE'));
        await waitFor(() => expect(tableRows()).toHaveLength(4));
        expect(lists.at(-1)?.get('status')).toBe('DONE');

        fireEvent.change(screen.getByRole('textbox', { name: '工单标题' }), { target: { value: '工单3' } });
        await waitFor(() => expect(lists.at(-1)?.get('title')).toBe('工单3'));
        await waitFor(() => expect(tableRows()).toHaveLength(1));
    });

    it('creates an order in a dialog: the schema speaks first, then the call carries the form', async () => {
        renderDefinitions([workOrders], '/workOrder');
        fireEvent.click(await screen.findByRole('button', { name: '新建工单' }, SLOW));
        const dialog = await screen.findByRole('dialog', { name: '新建工单' });
        await within(dialog).findByRole('combobox', { name: /站点/ });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入工单标题')).toBeInTheDocument();
        expect(within(dialog).getByText('请选择站点')).toBeInTheDocument();
        expect(sent).toEqual([]);

        await userEvent.type(within(dialog).getByRole('textbox', { name: /工单标题/ }), '更换阀门');
        await chooseOption(within(dialog).getByRole('combobox', { name: /站点/ }), '二号变电所');
        fireEvent.click(within(dialog).getByRole('radio', { name: '紧急' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功')).toBeInTheDocument();
        expect(Object.fromEntries(sent[0].body)).toMatchObject({ title: '更换阀门', siteId: '2', level: '1' });
        expect(await screen.findByText('更换阀门')).toBeInTheDocument();
    });

    it('assigns a new order (派单 only on new ones) and finishes one being handled after its confirmation', async () => {
        renderDefinitions([workOrders], '/workOrder');
        await screen.findByRole('table', {}, SLOW);
        const fresh = rowOf('WO-0004');
        expect(within(rowOf('WO-0002')).queryByRole('button', { name: '派单' })).not.toBeInTheDocument();
        expect(within(fresh).queryByRole('button', { name: '完成' })).not.toBeInTheDocument();

        fireEvent.click(within(fresh).getByRole('button', { name: '派单' }));
        let dialog = await screen.findByRole('dialog', { name: '派单' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        // waitFor, not findBy: the message's element is replaced while the picker's options arrive, so an element
        // found a moment earlier may already be detached when asserted.
        await waitFor(() => expect(within(dialog).getByText('请选择维保人员')).toBeInTheDocument());
        await chooseOption(await within(dialog).findByRole('combobox', { name: /维保人员/ }), '李工');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('派单成功')).toBeInTheDocument();
        await dismissNotification('派单成功');
        expect(Object.fromEntries(sent[0].body)).toEqual({ orderId: '4', engineer: '李工' });
        await waitFor(() => expect(rowOf('WO-0004')).toHaveTextContent('处理中'));

        fireEvent.click(await within(rowOf('WO-0004')).findByRole('button', { name: '完成' }));
        dialog = await screen.findByRole('dialog');
        expect(dialog).toHaveTextContent('确定工单“工单4”已处理完成？');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('工单已完成')).toBeInTheDocument();
        await waitFor(() => expect(rowOf('WO-0004')).toHaveTextContent('已完成'));
        expect(sent.map((s) => s.path)).toEqual(['assign', 'finish']);
    });

    it('edits with the site locked, and deletes after the confirmation naming the order', async () => {
        renderDefinitions([workOrders], '/workOrder');
        await screen.findByRole('table', {}, SLOW);
        fireEvent.click(within(rowOf('WO-0004')).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑工单' });
        const site = await within(dialog).findByRole('combobox', { name: /站点/ });
        await waitFor(() => expect(site).toHaveTextContent('一号泵站'));
        expect(site).toHaveAttribute('aria-disabled', 'true');
        const title = within(dialog).getByRole('textbox', { name: /工单标题/ });
        await userEvent.clear(title);
        await userEvent.type(title, '泵房巡检');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        await dismissNotification('修改成功');
        expect(Object.fromEntries(sent[0].body)).toEqual({ orderId: '4', title: '泵房巡检', level: '2', remark: '' });
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

        fireEvent.click(
            within(await screen.findByRole('row', { name: /泵房巡检/ })).getByRole('button', { name: '删除' }),
        );
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('确定删除工单“泵房巡检”吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        expect(sent.at(-1)).toMatchObject({ path: 'delete' });
        expect(sent.at(-1)?.body.get('orderId')).toBe('4');
    });

    it('finishes the selected orders at once, and says why it cannot when one is not being handled', async () => {
        renderDefinitions([workOrders], '/workOrder?status=DOING');
        await screen.findByRole('table', {}, SLOW);
        await waitFor(() => expect(tableRows()).toHaveLength(4));
        for (const row of tableRows().slice(0, 2)) fireEvent.click(within(row).getByRole('checkbox'));
        const bar = await screen.findByRole('status');
        expect(bar).toHaveTextContent('已选择 2 项');
        fireEvent.click(within(bar).getByRole('button', { name: '批量完成' }));
        expect(await screen.findByText('已完成 2 个工单')).toBeInTheDocument();
        expect(sent[0].body.getAll('orderIds')).toEqual(['2', '5']);
    });

    it('keeps 批量完成 disabled, with the reason, while a selected order is not being handled', async () => {
        renderDefinitions([workOrders], '/workOrder');
        await screen.findByRole('table', {}, SLOW);
        await waitFor(() => expect(tableRows()).toHaveLength(10));
        fireEvent.click(within(rowOf('WO-0001')).getByRole('checkbox'));
        const button = within(await screen.findByRole('status')).getByRole('button', { name: '批量完成' });
        expect(button).toBeDisabled();
        fireEvent.mouseOver(button.parentElement!);
        expect(await screen.findByRole('tooltip')).toHaveTextContent('只能完成处理中的工单');
    });
});

describe('the detail page /workOrderDetail/:orderId/*', () => {
    it('shows the header and the info tab, keeps the tab in the path, and hides 验收 until done', async () => {
        renderDefinitions([workOrders], '/workOrderDetail/2/info');
        const heading = await screen.findByRole('heading', { name: '工单2' }, SLOW);
        const header = heading.closest('section') as HTMLElement;
        expect(within(header).getByText('处理中')).toBeInTheDocument();
        expect(within(header).getByText('WO-0002')).toBeInTheDocument();
        expect(within(header).getByRole('button', { name: '完成' })).toBeInTheDocument();
        expect(within(header).queryByRole('button', { name: '派单' })).not.toBeInTheDocument();
        expect(screen.getByRole('link', { name: '维保工单' })).toHaveAttribute('href', '/workOrder');
        expect(screen.getByRole('tab', { name: '基本信息', selected: true })).toBeInTheDocument();
        expect(screen.queryByRole('tab', { name: '验收' })).not.toBeInTheDocument();
        const info = screen.getByRole('region', { name: '工单信息' });
        expect(within(info).getByLabelText('站点')).toHaveTextContent('一号泵站');
        expect(within(info).getByLabelText('维保人员')).toHaveTextContent('张工');

        fireEvent.click(within(header).getByRole('button', { name: '完成' }));
        fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        expect(await screen.findByRole('tab', { name: '验收' })).toBeInTheDocument();
        fireEvent.click(screen.getByRole('tab', { name: '验收' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/workOrderDetail/2/acceptance'));
        expect(within(screen.getByRole('region', { name: '验收信息' })).getByLabelText('完成时间')).toHaveTextContent(
            '2025-05-03 18:00:00',
        );
    });

    it('lists the handling records over their own call, pages and filters them under log_, and adds one', async () => {
        renderDefinitions([workOrders], '/workOrderDetail/2/logs');
        const table = await screen.findByRole('table', { name: '处理记录' }, SLOW);
        await waitFor(() => expect(tableRows(table)).toHaveLength(5));
        expect(screen.getByRole('region', { name: '处理统计' })).toHaveTextContent('记录数7累计工时14');
        expect(lists.at(-1)?.get('orderId')).toBe('2');

        fireEvent.click(
            within(screen.getByRole('navigation', { name: '分页' })).getByRole('button', { name: '第 2 页' }),
        );
        await waitFor(() => expect(searchParam('log_page')).toBe('2'));
        await waitFor(() => expect(tableRows(screen.getByRole('table', { name: '处理记录' }))).toHaveLength(2));

        fireEvent.click(screen.getByRole('tab', { name: '维修' }));
        await waitFor(() => expect(searchParam('log_kind')).toBe('REPAIR'));
        await waitFor(() => expect(tableRows(screen.getByRole('table', { name: '处理记录' }))).toHaveLength(3));
        expect(lists.at(-1)?.get('kind')).toBe('REPAIR');

        fireEvent.click(screen.getByRole('button', { name: '添加记录' }));
        const dialog = await screen.findByRole('dialog', { name: '添加记录' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入处理内容')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('radio', { name: '维修' }));
        await userEvent.type(within(dialog).getByRole('textbox', { name: /处理内容/ }), '更换密封圈');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('记录已添加')).toBeInTheDocument();
        expect(Object.fromEntries(sent[0].body)).toEqual({ orderId: '2', kind: 'REPAIR', content: '更换密封圈' });
        expect(await screen.findByText('更换密封圈')).toBeInTheDocument();
        expect(screen.getByRole('region', { name: '处理统计' })).toHaveTextContent('记录数8');
    });

    it('deletes from the header and goes back to the list', async () => {
        renderDefinitions([workOrders], '/workOrderDetail/3/info');
        const heading = await screen.findByRole('heading', { name: '工单3' }, SLOW);
        fireEvent.click(within(heading.closest('section') as HTMLElement).getByRole('button', { name: '删除' }));
        fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/workOrder'));
        expect(orders.some((o) => o.orderId === 3)).toBe(false);
    });

    it('says the order does not exist, or that the link is bad, with the way back', async () => {
        renderDefinitions([workOrders], '/workOrderDetail/99/info');
        expect(await screen.findByText(/未找到编号为 99 的工单/, {}, SLOW)).toBeInTheDocument();
        expect(screen.getByText('工单不存在')).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回维保工单' })).toHaveAttribute('href', '/workOrder');
    });

    it('says the link is bad without asking the platform', async () => {
        renderDefinitions([workOrders], '/workOrderDetail/abc/info');
        expect(await screen.findByText(/工单编号无效/, {}, SLOW)).toBeInTheDocument();
        expect(lists).toEqual([]);
    });
});
