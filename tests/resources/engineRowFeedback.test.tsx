import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { MemoryRouter } from 'react-router-dom';
import type { Resolver } from 'react-hook-form';
import { yupResolver } from '@hookform/resolvers/yup';
import { AdminContext, Form, memoryStore } from 'react-admin';
import * as yup from 'yup';
import { describe, expect, it } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { apiResources, defineResource, type AnyPaths, type FieldDefinition, type FormValues } from '../../src/engine';
import { FormInput } from '../../src/engine/inputs';
import { i18nProvider } from '../../src/i18n';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/**
 * Issue 40 item 8: after one failed submit, a row added to a repeatable group says what it lacks at once (react-hook-form
 * checks a field array after each change once the form was submitted; this pins it for the engine's 'rows' input); a
 * row action's bar floats under its button while the call runs, so the row's cells keep their place.
 */

const rota: FieldDefinition = {
    label: '值班安排',
    input: 'rows',
    rows: { fields: [['person', { label: '值班人', required: true }]], addLabel: '添加值班', rowLabel: '值班' },
};

const rotaSchema = yup.object({
    rota: yup.array().of(yup.object({ person: yup.string().required('请输入值班人') })),
});

function renderRota() {
    render(
        <MemoryRouter>
            <AdminContext
                dataProvider={createDataProvider(apiResources([]))}
                i18nProvider={i18nProvider}
                store={memoryStore()}
            >
                <Form
                    defaultValues={{ rota: [{ person: '' }] }}
                    resolver={yupResolver(rotaSchema) as Resolver}
                    onSubmit={(_: FormValues) => undefined}
                    noValidate
                >
                    <FormInput source="rota" field={rota} />
                    <button type="submit">提交</button>
                </Form>
            </AdminContext>
        </MemoryRouter>,
    );
}

describe('a repeatable row added after a failed submit', () => {
    it('shows its required message at once, and only until it is filled', async () => {
        renderRota();
        // Before any submit, a new row is quiet.
        fireEvent.click(screen.getByRole('button', { name: '添加值班' }));
        expect(screen.queryByText('请输入值班人')).toBeNull();
        fireEvent.click(screen.getByRole('button', { name: '删除值班第2行' }));
        fireEvent.click(screen.getByRole('button', { name: '提交' }));
        await waitFor(() => expect(screen.getAllByText('请输入值班人')).toHaveLength(1));
        fireEvent.click(screen.getByRole('button', { name: '添加值班' }));
        const second = screen.getByRole('group', { name: '值班第2行' });
        expect(await within(second).findByText('请输入值班人')).toBeInTheDocument();
        fireEvent.change(within(second).getByRole('textbox', { name: '值班人' }), { target: { value: '张三' } });
        await waitFor(() => expect(within(second).queryByText('请输入值班人')).toBeNull());
        expect(screen.getAllByText('请输入值班人')).toHaveLength(1);
    });
});

const groups = defineResource<AnyPaths>({
    name: 'testGroups',
    label: '联系组',
    fields: { name: { label: '组名称' }, members: { label: '成员数', type: 'number' } },
    list: {
        perPage: 10,
        perPageOptions: [10],
        rowActions: [
            { kind: 'call', label: '测试通知', call: { call: 'test' }, progress: '正在发送…', success: '已发送' },
        ],
    },
    views: { show: false, edit: false, create: false },
    api: {
        success: 'code200',
        getList: { get: '/api/test/groups', read: 'data' },
        custom: { test: { post: '/api/test/group/notify' } },
    },
});

describe('a row action while it runs', () => {
    it('floats its bar under the button instead of widening the actions cell', async () => {
        let release: () => void = () => undefined;
        mswServer.use(
            http.get('*/api/test/groups', () => ok([{ id: 1, name: '运维一组', members: 3 }])),
            http.post('*/api/test/group/notify', () => new Promise((resolve) => (release = () => resolve(ok({}))))),
        );
        renderDefinitions([groups], '/testGroups');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        const row = bodyRows()[0];
        fireEvent.click(within(row).getByRole('button', { name: '测试通知' }));
        const bar = await within(row).findByRole('progressbar', { name: '测试通知' });
        expect(within(row).getByText('正在发送…')).toBeInTheDocument();
        // Out of the cell's flow: positioned under the button, which keeps its own box.
        const overlay = bar.closest('[data-progress-overlay]') as HTMLElement;
        expect(getComputedStyle(overlay).position).toBe('absolute');
        expect(getComputedStyle(overlay.parentElement!).position).toBe('relative');
        release();
        expect(await screen.findByText('已发送')).toBeInTheDocument();
        await waitFor(() => expect(within(row).queryByRole('progressbar')).toBeNull());
    });
});
