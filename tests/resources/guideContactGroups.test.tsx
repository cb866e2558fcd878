import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type Row } from '../../src/engine';
import contactGroups from '../types/guideContactGroups.check';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/**
 * The guide's second worked example (docs/adding-a-resource.md section 10, alert contact groups) does what the guide
 * says: the rota's end is labelled 次日 while it is not after the start, the edit travels as one JSON body with its
 * arrays and rows whole, and the rota shows as a week grid whose night shift is on two days.
 */

const CONTACTS = [
    { id: 1, name: '张三', phone: '13800000001' },
    { id: 2, name: '李四', phone: '13800000002' },
];
const GROUP: Row = {
    id: 9,
    name: '值班一组',
    memberIds: [1, 2],
    rota: [{ shiftId: 3, contactId: 1, contactName: '张三', weekday: 3, start: '22:00', end: '06:00' }],
};

// The resource the picker's `rowsOf` names (the guide: "with the contacts resource beside it").
const contacts = defineResource<AnyPaths>({
    name: 'contacts',
    label: '联系人',
    fields: { name: { label: '姓名' }, phone: { label: '手机号' } },
    views: { show: false, edit: false, create: false },
    api: { success: 'code200', getList: { get: '/api/contact/list', read: 'data.list', total: 'data.totalCount' } },
});

function serve(sent: Array<{ type: string | null; body: unknown }>) {
    mswServer.use(
        http.get('*/api/contactGroup/list', () => ok({ list: [{ id: 9, name: '值班一组' }], totalCount: 1 })),
        http.get('*/api/contactGroup/get', () => ok(GROUP)),
        http.get('*/api/contact/list', () => ok({ list: CONTACTS, totalCount: 2 })),
        http.post('*/api/contactGroup/update', async ({ request }) => {
            sent.push({ type: request.headers.get('content-type'), body: await request.json() });
            return ok(null);
        }),
    );
}

describe('the guide’s contact groups', () => {
    it('labels a rota end 次日 while it is not after the start, and saves the group as one JSON body', async () => {
        const sent: Array<{ type: string | null; body: unknown }> = [];
        serve(sent);
        renderDefinitions([contactGroups, contacts], '/contactGroup');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(within(bodyRows()[0]).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑联系组' });
        const end = await within(dialog).findByLabelText('结束时间（次日）');
        expect(end).toHaveValue('06:00');
        fireEvent.change(end, { target: { value: '23:30' } });
        expect(await within(dialog).findByLabelText('结束时间')).toHaveValue('23:30');
        fireEvent.change(within(dialog).getByLabelText('结束时间'), { target: { value: '06:00' } });
        await within(dialog).findByLabelText('结束时间（次日）');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(sent).toHaveLength(1));
        expect(sent[0].type).toMatch(/^application\/json/);
        expect(sent[0].body).toMatchObject({
            name: '值班一组',
            memberIds: [1, 2],
            rota: [{ contactId: 1, weekday: 3, start: '22:00', end: '06:00' }],
        });
    });

    it('shows the rota on its detail page as a week grid, the night shift on 周三 and 周四', async () => {
        serve([]);
        renderDefinitions([contactGroups, contacts], '/contactGroupDetail/9/rota');
        const wednesday = await screen.findByRole('list', { name: '周三' });
        const thursday = screen.getByRole('list', { name: '周四' });
        for (const day of [wednesday, thursday]) {
            expect(within(day).getByRole('listitem')).toHaveAccessibleName('张三 周三 22:00–次日06:00');
        }
    });
});
