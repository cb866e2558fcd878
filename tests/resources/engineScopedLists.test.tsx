import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type Action, type Row, type Scope } from '../../src/engine';
import {
    bodyRows,
    chooseOption,
    currentLocation,
    fail,
    mswServer,
    ok,
    renderDefinitions,
    searchParam,
} from './helpers';

/**
 * Engine concepts the device screens brought (issue 9): a filter kept in the path, a notice section, a list of
 * another resource in a tab, bulk actions in the toolbar with `guard`, a switch action, a form's `lock` and
 * `openWith`, the toggle input with choices kept by the form values, the list's `subject`, a column's ellipsis,
 * a tab param that leaves the first tab's URL bare, and an upload's own refusals, `defaults` and `again`.
 */

interface Lamp {
    lampId: number;
    name: string;
    shelf: string;
    on: boolean;
    room: string | null;
}

let lamps: Lamp[] = [];
const sent: Array<{ path: string; params: URLSearchParams }> = [];
let failList = false;

const SHELVES = [
    { shelfId: 1, code: 'A', title: '一号架' },
    { shelfId: 2, code: 'B', title: '二号架' },
];
const ROOMS = [
    { roomId: 11, roomName: '会议室', floor: '一楼' },
    { roomId: 12, roomName: '机房', floor: '二楼' },
    { roomId: 13, roomName: '前台', floor: '一楼' },
];

const handlers = () => [
    http.get('*/api/lamp/shelves', () => ok(SHELVES)),
    http.get('*/api/lamp/rooms', () => ok(ROOMS)),
    http.get('*/api/lamp/list', ({ request }) => {
        const params = new URL(request.url).searchParams;
        sent.push({ path: 'list', params });
        if (failList) return fail('灯具服务维护中');
        const rows = lamps.filter((l) => !params.get('shelf') || l.shelf === params.get('shelf'));
        const size = Number(params.get('pageSize') ?? 10);
        const n = Number(params.get('pageNumber') ?? 1);
        return ok({
            records: rows.slice((n - 1) * size, n * size),
            total: rows.length,
            lit: rows.filter((l) => l.on).length,
        });
    }),
    http.post('*/api/lamp/:what', async ({ request, params }) => {
        const body = new URLSearchParams(await request.text());
        sent.push({ path: String(params.what), params: body });
        if (params.what === 'switch') {
            const lamp = lamps.find((l) => String(l.lampId) === body.get('lampId'))!;
            lamp.on = body.get('on') === 'true';
        }
        if (params.what === 'place') {
            for (const id of body.getAll('lampId'))
                lamps.find((l) => String(l.lampId) === id)!.room = body.get('roomId');
        }
        if (params.what === 'import') return fail('文件缺少 name 列');
        return ok({ count: body.getAll('lampId').length });
    }),
    http.get('*/api/bulb/list', () => ok({ records: [{ bulbId: 5, watt: 9 }], total: 1 })),
    http.post('*/api/bulb/test', async ({ request }) => {
        sent.push({ path: 'bulbTest', params: new URLSearchParams(await request.text()) });
        return ok(null);
    }),
];

const shelfOf = (scope: Scope) =>
    (scope.data?.shelves as Row[] | undefined)?.find((s) => String(s.shelfId) === scope.route.shelfId);

const place: Action = {
    kind: 'form',
    label: '放置',
    guard: ({ selected = [], values }) =>
        selected.length === 0 ? '请选择灯具' : values && !values.roomId ? '请选择房间' : undefined,
    fields: [
        [
            'floor',
            {
                label: '楼层',
                input: 'toggle',
                choices: ['全部', '一楼', '二楼'].map((f) => ({ id: f, name: f })),
                defaultValue: '全部',
                resets: { roomId: '' },
            },
        ],
        [
            'roomId',
            {
                label: '房间',
                input: 'radio',
                choicesFrom: {
                    call: 'rooms',
                    optionValue: 'roomId',
                    optionLabel: (r) => `${String(r.roomName)}（${String(r.floor)}）`,
                    keep: (r, values) => values.floor === '全部' || r.floor === values.floor,
                },
            },
        ],
    ],
    submit: {
        call: 'place',
        params: ({ selected = [], values }) => ({ roomId: values?.roomId, lampId: selected.map((l) => l.lampId) }),
    },
    success: '放置成功',
};

const lampResource = defineResource<AnyPaths>({
    name: 'lamps',
    label: '灯具',
    idField: 'lampId',
    views: { list: false, show: false, edit: false, create: false },
    fields: {
        name: { label: '名称', ellipsis: 120 },
        shelfCode: {
            label: '货架',
            input: 'select',
            choicesFrom: { call: 'shelves', optionValue: 'code', optionText: 'title' },
        },
        room: { label: '房间', readOnly: true },
    },
    pages: [
        {
            path: '/lampShelf/:shelfId?',
            title: '灯具',
            load: { shelves: { call: 'shelves' } },
            sections: [
                {
                    kind: 'notice',
                    severity: 'warning',
                    when: (scope) => !!scope.route.shelfId && !!scope.data?.shelves && !shelfOf(scope),
                    text: ({ route }) => `没有编号为 ${route.shelfId} 的货架`,
                    actions: [{ kind: 'link', label: '查看全部灯具', to: () => '/lampShelf' }],
                },
                {
                    kind: 'list',
                    when: (scope) => !scope.route.shelfId || !!shelfOf(scope),
                    list: {
                        subject: '灯具列表',
                        compactCells: true,
                        source: {
                            call: 'getList',
                            params: (scope) => (shelfOf(scope) ? { shelf: shelfOf(scope)!.code } : {}),
                        },
                        columns: ['name', 'room'],
                        filters: [
                            {
                                source: 'shelfId',
                                label: '货架',
                                input: 'select',
                                allLabel: '全部货架',
                                choicesFrom: { call: 'shelves', optionValue: 'shelfId', optionText: 'title' },
                                path: { param: 'shelfId', to: (v) => `/lampShelf${v ? `/${v}` : ''}` },
                            },
                        ],
                        counters: { items: [{ label: '点亮', value: 'lit' }] },
                        toolbar: [
                            {
                                kind: 'form',
                                label: '登记',
                                fields: ['shelfCode', 'name'],
                                defaults: (scope) => ({ shelfCode: shelfOf(scope)?.code ?? '' }),
                                lock: (scope) => (shelfOf(scope) ? ['shelfCode'] : []),
                                openWith: { query: 'new' },
                                submit: { call: 'register', params: ({ values }) => ({ ...values }) },
                                success: '登记成功',
                            },
                            {
                                kind: 'upload',
                                label: '导入',
                                call: { call: 'import' },
                                fields: [
                                    [
                                        'shelfCode',
                                        {
                                            label: '货架',
                                            input: 'select',
                                            choicesFrom: { call: 'shelves', optionValue: 'code', optionText: 'title' },
                                        },
                                    ],
                                ],
                                schema: yup.object({ shelfCode: yup.string().required('请选择货架') }),
                                defaults: (scope) => ({ shelfCode: shelfOf(scope)?.code ?? '' }),
                                accept: ['csv'],
                                refusals: { type: '只收CSV' },
                                again: '再导一个',
                            },
                        ],
                        bulkActions: [place],
                        bulkInToolbar: true,
                        rowActions: [
                            {
                                kind: 'switch',
                                label: ({ record }) => (record.on ? '亮着' : '灭着'),
                                ariaLabel: ({ record }) => `${record.on ? '熄灭' : '点亮'} ${String(record.name)}`,
                                checked: ({ record }) => !!record.on,
                                on: {
                                    kind: 'call',
                                    label: ({ record }) => `点亮 ${String(record.name)}`,
                                    call: {
                                        call: 'switch',
                                        params: ({ record }) => ({ lampId: record.lampId, on: true }),
                                    },
                                    success: '已点亮',
                                },
                                off: {
                                    kind: 'call',
                                    label: ({ record }) => `熄灭 ${String(record.name)}`,
                                    call: {
                                        call: 'switch',
                                        params: ({ record }) => ({ lampId: record.lampId, on: false }),
                                    },
                                    confirm: ({ record }) => `确定熄灭 ${String(record.name)} 吗？`,
                                    success: '已熄灭',
                                },
                            },
                        ],
                    },
                },
            ],
        },
        {
            path: '/lampTabs',
            title: '灯具与灯泡',
            tabParam: { query: 'tab', fallback: 'lamps', omitFallback: true },
            tabs: [
                { key: 'lamps', label: '灯具', sections: [{ kind: 'list', list: { columns: ['name'] } }] },
                {
                    key: 'bulbs',
                    label: '灯泡',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                resource: 'bulbs',
                                urlPrefix: 'bulb_',
                                columns: ['watt'],
                                rowActions: [
                                    {
                                        kind: 'call',
                                        label: '测试',
                                        call: { call: 'test', params: ({ record }) => ({ bulbId: record.bulbId }) },
                                    },
                                ],
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        idField: 'lampId',
        getList: {
            get: '/api/lamp/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        custom: {
            shelves: { get: '/api/lamp/shelves', read: 'data' },
            rooms: { get: '/api/lamp/rooms', read: 'data' },
            register: { post: '/api/lamp/register' },
            import: { post: '/api/lamp/import' },
            switch: { post: '/api/lamp/switch' },
            place: { post: '/api/lamp/place' },
        },
    },
});

const bulbResource = defineResource<AnyPaths>({
    name: 'bulbs',
    label: '灯泡',
    idField: 'bulbId',
    views: { list: false, show: false, edit: false, create: false },
    fields: { watt: { label: '功率' } },
    api: {
        success: 'code200',
        idField: 'bulbId',
        getList: {
            get: '/api/bulb/list',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.records',
            total: 'data.total',
        },
        custom: { test: { post: '/api/bulb/test' } },
    },
});

const SLOW = { timeout: 8000 };
const open = (url: string) => renderDefinitions([lampResource, bulbResource], url);
const rowOf = (name: string) => screen.getByText(name).closest('tr')!;

beforeEach(() => {
    sent.length = 0;
    failList = false;
    lamps = [
        { lampId: 1, name: '走廊灯', shelf: 'A', on: true, room: null },
        { lampId: 2, name: '台灯', shelf: 'A', on: false, room: null },
        { lampId: 3, name: '一盏名字很长很长很长很长很长很长很长很长的落地灯', shelf: 'B', on: false, room: null },
    ];
    mswServer.use(...handlers());
});

describe('a filter in the path, a notice, the list subject', () => {
    it('reads the filter from the path, sends it only through source.params, and goes to another path', async () => {
        open('/lampShelf/1');
        await waitFor(() => expect(bodyRows()).toHaveLength(2), SLOW);
        expect(sent.every((s) => s.path !== 'list' || s.params.get('shelf') === 'A')).toBe(true);
        expect(sent.some((s) => s.params.has('shelfId'))).toBe(false);
        expect(screen.getByRole('combobox', { name: '货架' })).toHaveTextContent('一号架');
        expect(screen.getByTestId('count-lit')).toHaveTextContent('1');
        await chooseOption(screen.getByRole('combobox', { name: '货架' }), '全部货架');
        await waitFor(() => expect(currentLocation.pathname).toBe('/lampShelf'));
        await waitFor(() => expect(bodyRows()).toHaveLength(3));
    });

    it('shows a notice with its action when the path names nothing, and the subject when the list fails', async () => {
        const first = open('/lampShelf/9');
        expect(await screen.findByText('没有编号为 9 的货架', {}, SLOW)).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '查看全部灯具' })).toHaveAttribute('href', '/lampShelf');
        expect(sent.filter((s) => s.path === 'list')).toHaveLength(0);
        first.unmount();
        failList = true;
        open('/lampShelf');
        expect(await screen.findByText(/灯具列表加载失败：灯具服务维护中/, {}, SLOW)).toBeInTheDocument();
    });

    it('keeps a long name on one line, cut with an ellipsis and titled with the whole name', async () => {
        open('/lampShelf');
        await waitFor(() => expect(bodyRows()).toHaveLength(3), SLOW);
        const name = '一盏名字很长很长很长很长很长很长很长很长的落地灯';
        const cell = within(rowOf(name)).getByTitle(name);
        expect(cell).toHaveStyle({ whiteSpace: 'nowrap', textOverflow: 'ellipsis', maxWidth: '120px' });
    });
});

describe('actions', () => {
    it('guards a toolbar bulk action by the selection before it opens, then places with a toggle and kept choices', async () => {
        open('/lampShelf');
        await waitFor(() => expect(bodyRows()).toHaveLength(3), SLOW);
        fireEvent.click(screen.getByRole('button', { name: '放置' }));
        expect(await screen.findByText('请选择灯具')).toBeInTheDocument();
        expect(screen.queryByRole('dialog')).toBeNull();

        fireEvent.click(within(rowOf('走廊灯')).getByRole('checkbox'));
        fireEvent.click(within(rowOf('台灯')).getByRole('checkbox'));
        fireEvent.click(screen.getByRole('button', { name: '放置' }));
        const dialog = await screen.findByRole('dialog', { name: '放置' });
        await within(dialog).findByRole('radio', { name: '机房（二楼）' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('请选择房间')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '放置' })).toBeInTheDocument();

        fireEvent.click(within(dialog).getByRole('button', { name: '一楼' }));
        await waitFor(() => expect(within(dialog).getAllByRole('radio')).toHaveLength(2));
        fireEvent.click(within(dialog).getByRole('radio', { name: '前台（一楼）' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('放置成功')).toBeInTheDocument();
        const placed = sent.find((s) => s.path === 'place')!.params;
        expect(placed.get('roomId')).toBe('13');
        expect(placed.getAll('lampId').sort()).toEqual(['1', '2']);
        // The selection is cleared once the bulk action succeeded.
        await waitFor(() => expect(within(rowOf('走廊灯')).getByRole('checkbox')).not.toBeChecked());
    });

    it('switches on at once and off after its confirmation', async () => {
        open('/lampShelf');
        await waitFor(() => expect(bodyRows()).toHaveLength(3), SLOW);
        const off = screen.getByRole('switch', { name: '熄灭 走廊灯' });
        expect(off).toBeChecked();
        fireEvent.click(off);
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('确定熄灭 走廊灯 吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已熄灭')).toBeInTheDocument();
        const on = await screen.findByRole('switch', { name: '点亮 走廊灯' });
        expect(on).not.toBeChecked();
        fireEvent.click(on);
        await waitFor(() => expect(sent.filter((s) => s.path === 'switch')).toHaveLength(2));
        expect(sent.filter((s) => s.path === 'switch').map((s) => s.params.get('on'))).toEqual(['false', 'true']);
    });

    it('opens a form for its URL param, locks what the path chose, and drops the param on close', async () => {
        open('/lampShelf/2?new=1');
        const dialog = await screen.findByRole('dialog', { name: '登记' }, SLOW);
        const shelf = await within(dialog).findByRole('combobox', { name: /货架/ });
        await waitFor(() => expect(shelf).toHaveTextContent('二号架'));
        expect(shelf).toHaveAttribute('aria-disabled', 'true');
        await userEvent.type(within(dialog).getByLabelText(/名称/), '壁灯');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('登记成功')).toBeInTheDocument();
        expect(Object.fromEntries(sent.find((s) => s.path === 'register')!.params)).toEqual({
            shelfCode: 'B',
            name: '壁灯',
        });
        await waitFor(() => expect(searchParam('new')).toBeNull());
    });

    it('uploads with its defaults and own refusal, and says a server refusal in the dialog', async () => {
        open('/lampShelf/1');
        await waitFor(() => expect(bodyRows()).toHaveLength(2), SLOW);
        fireEvent.click(screen.getByRole('button', { name: '导入' }));
        const dialog = await screen.findByRole('dialog', { name: '导入' });
        await waitFor(() => expect(within(dialog).getByRole('combobox', { name: /货架/ })).toHaveTextContent('一号架'));
        const pick = (file: File) =>
            fireEvent.change(within(dialog).getByLabelText('选择文件'), { target: { files: [file] } });
        pick(new File(['x'], 'lamps.xlsx'));
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        // A refusal on choice keeps its own words when 上传 is pressed without a file.
        expect(await within(dialog).findByText('只收CSV')).toBeInTheDocument();
        pick(new File(['name\n台灯\n'], 'lamps.csv', { type: 'text/csv' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        expect(await within(dialog).findByText('文件缺少 name 列')).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '上传' })).toBeEnabled();
    });
});

describe('tabs and another resource', () => {
    it("lists another resource in a tab with that resource's actions, and keeps the first tab's URL bare", async () => {
        open('/lampTabs?tab=bulbs');
        const row = await screen.findByRole('cell', { name: '9' }, SLOW);
        fireEvent.click(within(row.closest('tr')!).getByRole('button', { name: '测试' }));
        await waitFor(() => expect(sent.find((s) => s.path === 'bulbTest')?.params.get('bulbId')).toBe('5'));
        fireEvent.click(screen.getByRole('tab', { name: '灯具' }));
        await waitFor(() => expect(searchParam('tab')).toBeNull());
        await waitFor(() => expect(bodyRows()).toHaveLength(3));
        fireEvent.click(screen.getByRole('tab', { name: '灯泡' }));
        await waitFor(() => expect(searchParam('tab')).toBe('bulbs'));
    });
});
