import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type ResourceDefinition } from '../../src/engine';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/**
 * Issue 40 items 1, 2 and 5, on alert contact groups and their members: a nested list and a picker over another
 * entity take that entity's fields, the create dialog takes a width, and editing starts from the record read afresh.
 */

const CONTACTS = [
    { id: 1, name: '张三', phone: '13800000001' },
    { id: 2, name: '李四', phone: '13800000002' },
];
// The list row has no description: only the record read by getOne does.
const GROUP_ROW = { id: 9, name: '值班一组', memberCount: 2 };
const GROUP_RECORD = { ...GROUP_ROW, description: '夜班值守，负责告警升级' };

const contacts = defineResource<AnyPaths>({
    name: 'contacts',
    label: '联系人',
    fields: {
        name: { label: '姓名', type: 'link', linkTo: (r) => `/contactDetail/${String(r.id)}` },
        phone: { label: '手机号' },
    },
    views: { show: false, edit: false, create: false },
    api: { success: 'code200', getList: { get: '/api/test/contacts', read: 'data.records', total: 'data.total' } },
});

const contactGroups = defineResource<AnyPaths>({
    name: 'contactGroups',
    label: '联系组',
    path: 'contactGroup',
    fields: {
        name: { label: '组名称', type: 'link', linkTo: (r) => `/contactGroupDetail/${String(r.id)}/members` },
        memberCount: { label: '成员数', type: 'number', readOnly: true },
        description: { label: '说明', input: 'textarea', views: ['show', 'edit'] },
        memberIds: {
            label: '成员',
            input: 'picker',
            views: ['create'],
            picker: {
                // The group's own call answers contacts: `rowsOf` says whose fields name the columns.
                source: { call: 'candidates' },
                rowsOf: 'contacts',
                columns: ['name', 'phone'],
                rowId: 'id',
            },
        },
    },
    list: { perPage: 10, perPageOptions: [10], createInDialog: { width: 'lg' }, editInDialog: true, show: false },
    views: { show: false, edit: false },
    pages: [
        {
            path: '/contactGroupDetail/:id/*',
            title: '联系组详情',
            record: { call: 'getOne', params: ({ route }) => ({ id: route.id }) },
            tabs: [
                {
                    key: 'members',
                    label: '成员',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'members', params: ({ record }) => ({ groupId: record.id }) },
                                rowsOf: 'contacts',
                                label: '组成员',
                                columns: ['name', 'phone'],
                                paging: false,
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getList: { get: '/api/test/contactGroups', read: 'data.records', total: 'data.total' },
        getOne: { get: '/api/test/contactGroup', params: (r) => ({ id: r.id }), read: 'data' },
        create: { post: '/api/test/contactGroup/save' },
        update: { post: '/api/test/contactGroup/update' },
        custom: {
            candidates: { get: '/api/test/contactGroup/candidates', read: 'data.records', total: 'data.total' },
            members: { get: '/api/test/contactGroup/members', read: 'data.records', total: 'data.total' },
        },
    },
});

function handlers(asked: string[] = []) {
    return [
        http.get('*/api/test/contactGroups', () => ok({ records: [GROUP_ROW], total: 1 })),
        http.get('*/api/test/contactGroup', ({ request }) => {
            asked.push(new URL(request.url).searchParams.get('id') ?? '');
            return ok(GROUP_RECORD);
        }),
        http.get('*/api/test/contactGroup/candidates', () => ok({ records: CONTACTS, total: 2 })),
        http.get('*/api/test/contactGroup/members', () => ok({ records: CONTACTS, total: 2 })),
        http.get('*/api/test/contacts', () => ok({ records: CONTACTS, total: 2 })),
    ];
}

async function openRowEdit(definitions: ResourceDefinition[]) {
    renderDefinitions(definitions, '/contactGroup');
    await waitFor(() => expect(bodyRows()).toHaveLength(1));
    fireEvent.click(within(bodyRows()[0]).getByRole('button', { name: '编辑' }));
    return screen.findByRole('dialog', { name: '编辑联系组' });
}

describe('a nested list and a picker over another entity (item 1)', () => {
    it('the 成员 tab lists contacts under the contact’s labels and links, not the group’s', async () => {
        mswServer.use(...handlers());
        renderDefinitions([contactGroups, contacts], '/contactGroupDetail/9/members');
        const table = await screen.findByRole('table', { name: '组成员' });
        await within(table).findByText('张三');
        const headers = within(table)
            .getAllByRole('columnheader')
            .map((h) => h.textContent);
        expect(headers).toEqual(['姓名', '手机号']);
        expect(within(table).getByRole('link', { name: '张三' })).toHaveAttribute('href', '/contactDetail/1');
        expect(within(table).queryByText('组名称')).toBeNull();
    });

    it('the member picker in the create dialog names its columns by the contact’s fields', async () => {
        mswServer.use(...handlers());
        renderDefinitions([contactGroups, contacts], '/contactGroup');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(screen.getByRole('button', { name: '新建' }));
        const dialog = await screen.findByRole('dialog', { name: '新建联系组' });
        const picker = await within(dialog).findByRole('table', { name: '成员' });
        await within(picker).findByText('李四');
        expect(within(picker).getByRole('columnheader', { name: '姓名' })).toBeInTheDocument();
        expect(within(picker).queryByRole('columnheader', { name: '组名称' })).toBeNull();
        expect(within(picker).getByRole('link', { name: '李四' })).toHaveAttribute('href', '/contactDetail/2');
    });
});

describe('dialog widths (item 2)', () => {
    it('opens the create dialog at the width the list asks for (lg), edit at the default (sm)', async () => {
        mswServer.use(...handlers());
        renderDefinitions([contactGroups, contacts], '/contactGroup');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(screen.getByRole('button', { name: '新建' }));
        const create = await screen.findByRole('dialog', { name: '新建联系组' });
        expect(create).toHaveClass('MuiDialog-paperWidthLg');
        expect(create).not.toHaveClass('MuiDialog-paperWidthSm');
        fireEvent.click(within(create).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新建联系组' })).toBeNull());
        fireEvent.click(within(bodyRows()[0]).getByRole('button', { name: '编辑' }));
        expect(await screen.findByRole('dialog', { name: '编辑联系组' })).toHaveClass('MuiDialog-paperWidthSm');
    });
});

describe('editing starts from the full record (item 5)', () => {
    it('reads the record with getOne, so a field the list row lacks is filled, and saves it', async () => {
        const asked: string[] = [];
        const saved: Record<string, string>[] = [];
        mswServer.use(
            ...handlers(asked),
            http.post('*/api/test/contactGroup/update', async ({ request }) => {
                saved.push(Object.fromEntries(new URLSearchParams(await request.text())));
                return ok(null);
            }),
        );
        const dialog = await openRowEdit([contactGroups, contacts]);
        const description = await within(dialog).findByRole('textbox', { name: '说明' });
        expect(description).toHaveValue(GROUP_RECORD.description);
        expect(asked).toEqual(['9']);
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(saved[0]).toMatchObject({ id: '9', name: '值班一组', description: GROUP_RECORD.description });
    });

    it('keeps the list row without asking getOne when the definition says load: row', async () => {
        const asked: string[] = [];
        mswServer.use(...handlers(asked));
        const fromRow: ResourceDefinition = {
            ...contactGroups,
            list: { ...contactGroups.list!, editInDialog: { load: 'row', width: 'md' } },
        };
        const dialog = await openRowEdit([fromRow, contacts]);
        expect(dialog).toHaveClass('MuiDialog-paperWidthMd');
        expect(within(dialog).getByRole('textbox', { name: '组名称' })).toHaveValue('值班一组');
        expect(within(dialog).getByRole('textbox', { name: '说明' })).toHaveValue('');
        expect(asked).toEqual([]);
    });
});
