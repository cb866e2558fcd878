import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { mswServer, ok, renderDefinitions } from './helpers';

/**
 * Two engine concepts of the server-subscription screens, on a made-up resource: `input: 'checkboxes'` (several
 * choices, the value an array) and a call action's `reveal` (values of the answer shown once in a dialog).
 */

let sent: Record<string, string>[] = [];

const tokens = defineResource<AnyPaths>({
    name: 'tokens',
    label: '令牌',
    fields: { name: { label: '名称' } },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/tokens',
            title: '令牌',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'list' },
                        rowId: 'id',
                        paging: false,
                        columns: ['name'],
                        toolbar: [
                            {
                                kind: 'call',
                                label: '生成令牌',
                                call: { call: 'issue', params: () => ({}) },
                                success: '已生成',
                                reveal: {
                                    title: '令牌已生成',
                                    note: '令牌只显示这一次',
                                    fields: [
                                        { label: '令牌ID', path: 'id' },
                                        { label: '令牌密文', path: 'secret.value', copy: true },
                                    ],
                                },
                            },
                            {
                                kind: 'form',
                                label: '设置权限',
                                fields: [
                                    [
                                        'scopes',
                                        {
                                            label: '权限',
                                            input: 'checkboxes',
                                            choices: [
                                                { id: 'read', name: '读取' },
                                                { id: 'write', name: '写入' },
                                            ],
                                        },
                                    ],
                                ],
                                schema: yup.object({ scopes: yup.array().min(1, '请至少选择一项权限') }),
                                defaults: () => ({ scopes: ['read'] }),
                                submit: { call: 'scopes', params: ({ values }) => ({ scopes: values?.scopes }) },
                                success: '已设置',
                            },
                        ],
                    },
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/tokens', read: 'data' },
            issue: { post: '/api/tokens/issue', read: 'data' },
            scopes: { post: '/api/tokens/scopes', arrays: 'comma' },
        },
    },
});

beforeEach(() => {
    sent = [];
    mswServer.use(
        http.get('*/api/tokens', () => ok([{ id: 1, name: '旧令牌' }])),
        http.post('*/api/tokens/issue', () => ok({ id: 'T-2', secret: { value: 'only-once-123' } })),
        http.post('*/api/tokens/scopes', async ({ request }) => {
            sent.push(Object.fromEntries(new URLSearchParams(await request.text())));
            return ok(null);
        }),
    );
});

describe('engine: reveal and checkboxes', () => {
    it("reveal: shows the answer's values once, with copy, until 我已保存", async () => {
        renderDefinitions([tokens], '/tokens');
        await screen.findByText('旧令牌');
        fireEvent.click(screen.getByRole('button', { name: '生成令牌' }));
        const dialog = await screen.findByRole('dialog', { name: '令牌已生成' });
        expect(within(dialog).getByLabelText('令牌ID')).toHaveTextContent('T-2');
        expect(within(dialog).getByLabelText('令牌密文')).toHaveTextContent('only-once-123');
        expect(within(dialog).getByRole('button', { name: '复制令牌密文' })).toBeInTheDocument();
        expect(within(dialog).queryByRole('button', { name: '复制令牌ID' })).not.toBeInTheDocument();
        expect(within(dialog).getByText('令牌只显示这一次')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '我已保存' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(screen.queryByText('only-once-123')).not.toBeInTheDocument();
    });

    it('checkboxes: several choices make an array value; the schema speaks when none', async () => {
        renderDefinitions([tokens], '/tokens');
        await screen.findByText('旧令牌');
        fireEvent.click(screen.getByRole('button', { name: '设置权限' }));
        const dialog = await screen.findByRole('dialog');
        expect(within(dialog).getByRole('checkbox', { name: '读取' })).toBeChecked();
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '读取' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(within(dialog).getByText(/请至少选择一项权限/)).toBeInTheDocument());
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '读取' }));
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '写入' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已设置')).toBeInTheDocument();
        expect(sent).toEqual([{ scopes: 'read,write' }]);
    });
});
