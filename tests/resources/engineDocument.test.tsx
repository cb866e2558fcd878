import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { fail, mswServer, ok, renderDefinitions } from './helpers';

/**
 * Two concepts of the vocabulary on a small entity (a meter with a settings document): the `document` section (a
 * record of its own call shown as fields and pretty-printed JSON parts, its 刷新, loading, failure with 重试 and empty
 * state, actions that see the answer as `scope.data.document`), and a form action's `confirm` (asked after the schema
 * passes; 取消 keeps the form and its values, 确定 submits), with a monospaced code textarea.
 */

let settings: { exists: boolean; version: number; values: Record<string, unknown>; meta: Record<string, unknown> };
let failGet = false;
let saved: Array<Record<string, string>> = [];

const handlers = () => [
    http.get('*/api/meter/get', () => ok({ meterId: 3, name: '三号表' })),
    http.get('*/api/meter/settings', () =>
        failGet
            ? fail('设置服务不可用', 404)
            : ok({ ...settings, state: { values: settings.values }, updatedAt: '2026-12-06 10:00:00' }),
    ),
    http.post('*/api/meter/settings/save', async ({ request }) => {
        const body = Object.fromEntries(new URLSearchParams(await request.text()));
        saved.push(body);
        settings = {
            ...settings,
            exists: true,
            version: Number(body.version),
            values: JSON.parse(body.values) as Record<string, unknown>,
        };
        return ok(null);
    }),
];

const jsonSchema = yup.object({
    values: yup
        .string()
        .required('请输入设置')
        .test('json', '设置不是有效的 JSON', (v) => {
            try {
                JSON.parse(v ?? '');
                return true;
            } catch {
                return false;
            }
        }),
});

const meters = defineResource<AnyPaths>({
    name: 'meters',
    label: '电表',
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/meter/:meterId/*',
            title: '电表详情',
            record: { call: 'get', params: ({ route }) => ({ meterId: route.meterId }) },
            header: { title: ({ record }) => String(record.name) },
            sections: [
                {
                    kind: 'document',
                    title: '设置文档',
                    source: { call: 'settings', params: ({ record }) => ({ meterId: record.meterId }) },
                    fields: [
                        ['version', { label: '版本' }],
                        ['updatedAt', { label: '更新时间' }],
                    ],
                    json: [
                        { label: '设置值', path: 'state.values' },
                        { label: '元数据', path: 'meta' },
                    ],
                    refresh: '刷新设置',
                    empty: {
                        when: (answer) => answer.exists === false,
                        text: '还没有设置',
                        hint: ({ record }) => `${String(record.name)}保存设置后在此显示`,
                    },
                    actions: [
                        {
                            kind: 'form',
                            label: '编辑设置',
                            fields: [
                                [
                                    'values',
                                    {
                                        label: '设置（JSON）',
                                        input: 'code',
                                        code: { language: 'json' },
                                    },
                                ],
                            ],
                            schema: jsonSchema,
                            defaults: ({ data }) => ({
                                values: JSON.stringify(
                                    ((data?.document as { state?: { values?: unknown } }).state?.values as object) ??
                                        {},
                                ),
                            }),
                            submit: {
                                call: 'save',
                                params: ({ record, values, data }) => ({
                                    meterId: record.meterId,
                                    values: values?.values,
                                    version: Number((data?.document as { version?: number }).version ?? 0) + 1,
                                }),
                            },
                            confirm: ({ record, values }) =>
                                `确定将 ${String(values?.values)} 写入${String(record.name)}？`,
                            confirmTitle: '写入设置',
                            success: '已保存',
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            get: { get: '/api/meter/get', read: 'data' },
            settings: { get: '/api/meter/settings', read: 'data' },
            save: { post: '/api/meter/settings/save' },
        },
    },
});

const title = () => screen.findByRole('heading', { level: 1 }, { timeout: 20_000 });
const section = () => screen.findByRole('region', { name: '设置文档' }, { timeout: 10_000 });

describe('document sections and confirmed forms', () => {
    beforeEach(() => {
        settings = { exists: true, version: 4, values: { rate: 2, mode: 'eco' }, meta: { rate: { timestamp: 1 } } };
        failGet = false;
        saved = [];
        mswServer.use(...handlers());
    });

    it('shows the fields and each JSON part indented under its label', async () => {
        renderDefinitions([meters], '/meter/3');
        await title();
        const region = await section();
        expect(await within(region).findByLabelText('版本')).toHaveTextContent('4');
        expect(within(region).getByLabelText('更新时间')).toHaveTextContent('2026-12-06 10:00:00');
        expect(within(region).getByLabelText('设置值').textContent).toBe(
            JSON.stringify({ rate: 2, mode: 'eco' }, null, 2),
        );
        expect(within(region).getByLabelText('元数据').textContent).toBe(
            JSON.stringify({ rate: { timestamp: 1 } }, null, 2),
        );
        // What changed elsewhere shows after 刷新.
        settings = { ...settings, version: 9, values: { rate: 7 } };
        fireEvent.click(within(region).getByRole('button', { name: '刷新设置' }));
        await waitFor(() => expect(within(region).getByLabelText('版本')).toHaveTextContent('9'));
        expect(within(region).getByLabelText('设置值').textContent).toBe(JSON.stringify({ rate: 7 }, null, 2));
    });

    it('says the empty state (with the record in its hint) and keeps the actions; a failure offers 重试', async () => {
        settings.exists = false;
        const { unmount } = renderDefinitions([meters], '/meter/3');
        await title();
        const region = await section();
        expect(await within(region).findByText('还没有设置')).toBeInTheDocument();
        expect(within(region).getByText('三号表保存设置后在此显示')).toBeInTheDocument();
        expect(within(region).queryByLabelText('设置值')).toBeNull();
        expect(within(region).getByRole('button', { name: '编辑设置' })).toBeInTheDocument();
        unmount();

        settings.exists = true;
        failGet = true;
        renderDefinitions([meters], '/meter/3');
        await title();
        const failed = await section();
        expect(
            await within(failed).findByText('设置文档加载失败：设置服务不可用', {}, { timeout: 10_000 }),
        ).toBeInTheDocument();
        failGet = false;
        fireEvent.click(within(failed).getByRole('button', { name: '重试' }));
        expect(await within(failed).findByLabelText('版本')).toHaveTextContent('4');
    });

    it('a form confirms after its schema passes: 取消 keeps the values, 确定 submits them and the document reloads', async () => {
        renderDefinitions([meters], '/meter/3');
        await title();
        const region = await section();
        fireEvent.click(await within(region).findByRole('button', { name: '编辑设置' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑设置' });
        const input = within(dialog).getByLabelText('设置（JSON）');
        // Starts from the document the section shows; a 'code' input (its plain textarea where jsdom cannot measure
        // text), which keeps what is typed: no spell checking.
        expect(input).toHaveValue('{"rate":2,"mode":"eco"}');
        expect(input.tagName).toBe('TEXTAREA');
        expect(input).toHaveAttribute('spellcheck', 'false');

        await userEvent.clear(input);
        await userEvent.type(input, '{{"rate":');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('设置不是有效的 JSON')).toBeInTheDocument();
        expect(screen.queryByRole('dialog', { name: '写入设置' })).toBeNull();

        await userEvent.clear(input);
        await userEvent.type(input, '{{"rate":5}');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        let ask = await screen.findByRole('dialog', { name: '写入设置' });
        expect(ask).toHaveTextContent('确定将 {"rate":5} 写入三号表？');
        fireEvent.click(within(ask).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '写入设置' })).toBeNull());
        expect(saved).toEqual([]);
        expect(within(dialog).getByLabelText('设置（JSON）')).toHaveValue('{"rate":5}');

        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        ask = await screen.findByRole('dialog', { name: '写入设置' });
        fireEvent.click(within(ask).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已保存')).toBeInTheDocument();
        expect(saved).toEqual([{ meterId: '3', values: '{"rate":5}', version: '5' }]);
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '编辑设置' })).toBeNull());
        await waitFor(() => expect(within(region).getByLabelText('版本')).toHaveTextContent('5'));
        expect(within(region).getByLabelText('设置值').textContent).toBe(JSON.stringify({ rate: 5 }, null, 2));
    });
});
