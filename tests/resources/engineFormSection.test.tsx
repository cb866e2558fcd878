import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import * as yup from 'yup';
import { defineResource, type AnyPaths } from '../../src/engine';
import { fail, mswServer, ok, renderDefinitions } from './helpers';

/**
 * The `form` section: inputs on the page filled from a call, several buttons each checking its own schema before its
 * call (messages under the inputs, no call), a confirmation before the one that asks, and the answer of a button with
 * `show` (or its failure) laid under the form. The `code` input keeps program text as typed.
 */

let stored = '';
const posted: Array<{ path: string; body: Record<string, unknown> }> = [];

async function bodyOf(request: Request): Promise<Record<string, unknown>> {
    const text = await request.text();
    if (request.headers.get('content-type')?.includes('json')) return JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(new URLSearchParams(text));
}

const handlers = () => [
    http.get('*/api/note/detail', () => ok({ noteId: 1, name: '一号' })),
    http.get('*/api/note/text', () => ok({ text: stored })),
    http.post('*/api/note/save', async ({ request }) => {
        const body = await bodyOf(request);
        posted.push({ path: 'save', body });
        stored = String(body.text);
        return ok(null);
    }),
    http.post('*/api/note/run', async ({ request }) => {
        const body = await bodyOf(request);
        posted.push({ path: 'run', body });
        if (body.input === 'bad') return fail('输入无法解析');
        return ok({ output: String(body.text).toUpperCase() });
    }),
];

const textSchema = yup.object({ text: yup.string().required('请输入文本') });
const runSchema = textSchema.shape({ input: yup.string().required('请输入运行参数') });

const noteResource = defineResource<AnyPaths>({
    name: 'notes',
    label: '笔记',
    idField: 'noteId',
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/noteDetail/:noteId/*',
            title: '笔记详情',
            record: { call: 'detail', params: ({ route }) => ({ noteId: route.noteId }) },
            tabs: [
                {
                    key: 'edit',
                    label: '编辑',
                    sections: [
                        {
                            kind: 'form',
                            title: '笔记内容',
                            note: ({ record }) => `笔记 ${String(record.name)}`,
                            load: { call: 'text' },
                            defaults: (_scope, loaded) => ({ text: (loaded as { text: string }).text, input: '' }),
                            fields: [
                                ['text', { label: '文本', input: 'code' }],
                                ['input', { label: '运行参数' }],
                            ],
                            submits: [
                                {
                                    label: '运行',
                                    call: { call: 'run', params: ({ values }) => ({ ...values }) },
                                    schema: runSchema,
                                    show: (answer) => ({
                                        severity: 'success',
                                        title: '运行成功',
                                        body: (answer as { output: string }).output,
                                    }),
                                },
                                {
                                    label: '保存',
                                    primary: true,
                                    call: { call: 'save', params: ({ values }) => ({ text: values?.text }) },
                                    schema: textSchema,
                                    confirm: '确定保存吗？',
                                    success: '已保存',
                                },
                            ],
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            detail: { get: '/api/note/detail', read: 'data' },
            text: { get: '/api/note/text', read: 'data' },
            save: { post: '/api/note/save', read: 'data' },
            run: { post: '/api/note/run', read: 'data' },
        },
    },
});

beforeEach(() => {
    stored = 'function f() {\n\treturn 1;\n}';
    posted.length = 0;
    mswServer.use(...handlers());
});

const SLOW = { timeout: 15_000 };

describe('form section', { timeout: 30_000 }, () => {
    it('fills the inputs from its call; a code input keeps the text as typed, without spell checking', async () => {
        renderDefinitions([noteResource], '/noteDetail/1/edit');
        const text = await screen.findByRole('textbox', { name: '文本' }, SLOW);
        expect(text).toHaveValue('function f() {\n\treturn 1;\n}');
        expect(text).toHaveAttribute('spellcheck', 'false');
        expect(screen.getByRole('region', { name: '笔记内容' })).toHaveTextContent('笔记 一号');
    });

    it("checks each button's own schema before its call: the message under the input, nothing sent", async () => {
        const user = userEvent.setup();
        renderDefinitions([noteResource], '/noteDetail/1/edit');
        await screen.findByRole('textbox', { name: '文本' }, SLOW);
        await user.click(screen.getByRole('button', { name: '运行' }));
        expect(await screen.findByText('请输入运行参数')).toBeInTheDocument();
        expect(posted).toEqual([]);
    });

    it('shows the answer of a button with `show` under the form, and its failure there too', async () => {
        const user = userEvent.setup();
        renderDefinitions([noteResource], '/noteDetail/1/edit');
        await screen.findByRole('textbox', { name: '文本' }, SLOW);
        await user.type(screen.getByRole('textbox', { name: '运行参数' }), 'go');
        await user.click(screen.getByRole('button', { name: '运行' }));
        const result = await screen.findByRole('status', { name: '运行成功' });
        expect(result).toHaveTextContent('FUNCTION F()');
        expect(posted).toEqual([{ path: 'run', body: expect.objectContaining({ input: 'go' }) }]);
        await user.clear(screen.getByRole('textbox', { name: '运行参数' }));
        await user.type(screen.getByRole('textbox', { name: '运行参数' }), 'bad');
        await user.click(screen.getByRole('button', { name: '运行' }));
        const failure = await screen.findByRole('status', { name: '运行失败' });
        expect(failure).toHaveTextContent('输入无法解析');
        expect(screen.queryByRole('status', { name: '运行成功' })).toBeNull();
    });

    it('asks before a button with a confirmation; 取消 sends nothing, 确定 sends the typed values', async () => {
        const user = userEvent.setup();
        renderDefinitions([noteResource], '/noteDetail/1/edit');
        const text = await screen.findByRole('textbox', { name: '文本' }, SLOW);
        await user.clear(text);
        await user.type(text, 'new text');
        await user.click(screen.getByRole('button', { name: '保存' }));
        const dialog = await screen.findByRole('dialog');
        expect(dialog).toHaveTextContent('确定保存吗？');
        await user.click(within(dialog).getByRole('button', { name: '取消' }));
        expect(posted).toEqual([]);
        // The dialog is gone (the page behind it is no longer hidden from the accessibility tree) before the next click.
        await user.click(await screen.findByRole('button', { name: '保存' }));
        await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(posted).toEqual([{ path: 'save', body: { text: 'new text' } }]));
        expect(await screen.findByText('已保存')).toBeInTheDocument();
    });
});
