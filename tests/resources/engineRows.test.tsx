import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { MemoryRouter } from 'react-router-dom';
import { AdminContext, Form, memoryStore } from 'react-admin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import {
    apiResources,
    defineResource,
    type AnyPaths,
    type FieldDefinition,
    type FormValues,
    type Row,
} from '../../src/engine';
import { FormInput } from '../../src/engine/inputs';
import { i18nProvider } from '../../src/i18n';
import { chooseOption, mswServer } from './helpers';

/**
 * The engine's `rows` input (repeatable row groups): rows added and deleted, each row's fields shown by the row's own
 * values (`values.$row`), choices loaded for the row, resets within the row, and the submitted array.
 */

const sites = defineResource<AnyPaths>({
    name: 'rowSites',
    label: '站点',
    fields: {},
    api: { success: 'code200', custom: { tools: { get: '/api/test/tools', read: 'data' } } },
});

const steps: FieldDefinition = {
    label: '作业步骤',
    input: 'rows',
    rows: {
        fields: [
            [
                'kind',
                {
                    label: '类型',
                    input: 'select',
                    choices: [
                        { id: 'check', name: '检查' },
                        { id: 'tool', name: '使用工具' },
                    ],
                    resets: { tool: '' },
                },
            ],
            [
                'tool',
                {
                    label: '工具',
                    input: 'select',
                    visibleWhen: (v) => (v.$row as Row)?.kind === 'tool',
                    choicesFrom: {
                        call: 'tools',
                        resource: 'rowSites',
                        params: (v) => ({ site: v.site, kind: (v.$row as Row)?.kind }),
                        optionValue: 'id',
                        optionText: 'name',
                    },
                },
            ],
            ['note', { label: '说明' }],
        ],
        addLabel: '添加步骤',
        newRow: { kind: 'check' },
        max: 2,
        rowLabel: '步骤',
    },
};

const asked: string[] = [];

beforeEach(() => {
    mswServer.use(
        http.get('*/api/test/tools', ({ request }) => {
            const url = new URL(request.url);
            asked.push(url.search);
            return HttpResponse.json({
                code: 200,
                data: [
                    { id: 'wrench', name: `扳手（${url.searchParams.get('site')}）` },
                    { id: 'meter', name: '万用表' },
                ],
            });
        }),
    );
});

afterEach(() => {
    asked.length = 0;
});

function renderRows(defaultValues: FormValues) {
    const submitted: FormValues[] = [];
    render(
        <MemoryRouter>
            <AdminContext
                dataProvider={createDataProvider(apiResources([sites]))}
                i18nProvider={i18nProvider}
                store={memoryStore()}
            >
                <Form defaultValues={defaultValues} onSubmit={(v: FormValues) => void submitted.push(v)} noValidate>
                    <FormInput source="steps" field={steps} />
                    <button type="submit">提交</button>
                </Form>
            </AdminContext>
        </MemoryRouter>,
    );
    return submitted;
}

describe("input 'rows'", () => {
    it('adds rows up to max, shows a row field by the row, loads its choices with the row and form values', async () => {
        const submitted = renderRows({ site: 'A区', steps: [] });
        expect(screen.getByText('暂无作业步骤')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '添加步骤' }));
        fireEvent.click(screen.getByRole('button', { name: '添加步骤' }));
        expect(screen.getByRole('button', { name: '添加步骤' })).toBeDisabled();
        expect(screen.getByText('最多 2 行')).toBeInTheDocument();

        const first = screen.getByRole('group', { name: '步骤第1行' });
        // A check step has no tool.
        expect(within(first).queryByRole('combobox', { name: /工具/ })).toBeNull();
        await chooseOption(within(first).getByRole('combobox', { name: /类型/ }), '使用工具');
        const tool = await within(first).findByRole('combobox', { name: /工具/ });
        await chooseOption(tool, '扳手（A区）');
        expect(asked).toEqual(['?site=A%E5%8C%BA&kind=tool']);
        // The second row is its own: still a check step.
        expect(
            within(screen.getByRole('group', { name: '步骤第2行' })).queryByRole('combobox', { name: /工具/ }),
        ).toBeNull();

        fireEvent.change(within(first).getByRole('textbox', { name: '说明' }), { target: { value: '拧紧螺栓' } });
        fireEvent.click(screen.getByRole('button', { name: '提交' }));
        await waitFor(() => expect(submitted).toHaveLength(1));
        expect(submitted[0].steps).toEqual([{ kind: 'tool', tool: 'wrench', note: '拧紧螺栓' }, { kind: 'check' }]);
    });

    it('resets fields of the same row only, and deletes a row', async () => {
        const submitted = renderRows({
            site: 'B区',
            steps: [
                { kind: 'tool', tool: 'meter', note: '一' },
                { kind: 'tool', tool: 'wrench', note: '二' },
            ],
        });
        const first = screen.getByRole('group', { name: '步骤第1行' });
        await chooseOption(within(first).getByRole('combobox', { name: /类型/ }), '检查');
        fireEvent.click(screen.getByRole('button', { name: '删除步骤第2行' }));
        fireEvent.click(screen.getByRole('button', { name: '提交' }));
        await waitFor(() => expect(submitted).toHaveLength(1));
        expect(submitted[0].steps).toEqual([{ kind: 'check', tool: '', note: '一' }]);
    });
});
