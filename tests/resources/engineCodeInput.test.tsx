import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { EditorView } from '@uiw/react-codemirror';
import { http } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine/types';
import { mswServer, ok, renderDefinitions } from './helpers';

/**
 * The 'code' input: CodeMirror where the document can measure text (given here to jsdom, which cannot), with the
 * language's highlighting, its text going into the form; without measuring, the plain textarea of every other test.
 */

const scripts = defineResource<AnyPaths>({
    name: 'scripts',
    label: '脚本',
    fields: { name: { label: '名称' } },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/scripts',
            title: '脚本',
            sections: [
                {
                    kind: 'actions',
                    actions: [
                        {
                            kind: 'form',
                            label: '编写 SQL',
                            fields: [['sql', { label: 'SQL', input: 'code', code: { language: 'sql' } }]],
                            defaults: () => ({ sql: 'SELECT 1' }),
                            submit: { call: 'save', params: ({ values }) => ({ sql: values?.sql }) },
                            success: '已保存',
                        },
                    ],
                },
            ],
        },
    ],
    api: { success: 'code200', custom: { save: { post: '/api/scripts/save', body: 'json' } } },
});

describe('the code input', () => {
    let sent: unknown[];

    beforeEach(() => {
        sent = [];
        mswServer.use(
            http.post('/api/scripts/save', async ({ request }) => {
                sent.push(await request.json());
                return ok(null);
            }),
        );
    });
    afterEach(() => {
        // jsdom has neither: the other tests see the document as it is.
        delete (Range.prototype as Partial<Range>).getClientRects;
        delete (Range.prototype as Partial<Range>).getBoundingClientRect;
    });

    it('is a CodeMirror SQL editor whose text the form submits', async () => {
        const empty = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
        Range.prototype.getClientRects = empty;
        Range.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
        renderDefinitions([scripts], '/scripts');
        fireEvent.click(await screen.findByRole('button', { name: '编写 SQL' }));
        const dialog = await screen.findByRole('dialog', { name: '编写 SQL' });
        const content = await waitFor(
            () => {
                const found = dialog.querySelector<HTMLElement>('.cm-content');
                expect(found).not.toBeNull();
                return found!;
            },
            { timeout: 10_000 },
        );
        expect(content).toHaveAttribute('aria-label', 'SQL');
        expect(content.textContent).toBe('SELECT 1');
        // The SQL language marks the keyword.
        expect(within(content).getByText('SELECT').className).toMatch(/ͼ/);

        const view = EditorView.findFromDOM(content)!;
        view.dispatch({
            changes: { from: view.state.doc.length, insert: " AS one FROM '/+/+/thing/event/property/post'" },
        });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已保存')).toBeInTheDocument();
        expect(sent).toEqual([{ sql: "SELECT 1 AS one FROM '/+/+/thing/event/property/post'" }]);
    });

    it('stays a monospace textarea where text cannot be measured', async () => {
        renderDefinitions([scripts], '/scripts');
        fireEvent.click(await screen.findByRole('button', { name: '编写 SQL' }));
        const dialog = await screen.findByRole('dialog', { name: '编写 SQL' });
        const textarea = within(dialog).getByRole('textbox', { name: 'SQL' });
        expect(textarea.tagName).toBe('TEXTAREA');
        fireEvent.change(textarea, { target: { value: 'SELECT 2' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已保存')).toBeInTheDocument();
        expect(sent).toEqual([{ sql: 'SELECT 2' }]);
        expect(dialog.querySelector('.cm-editor')).toBeNull();
    });
});
