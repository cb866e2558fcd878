import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import * as yup from 'yup';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { mswServer, ok, renderDefinitions } from './helpers';

/**
 * Three concepts of the vocabulary on one small entity (a boiler and its setting): a `fields` section whose record is
 * a call's answer (its empty state while the answer is null, its actions seeing that record and the page's), a form
 * input whose helper text follows the values typed (`formHelperText`), and a form asking a confirmation before its
 * call (`confirm`: 取消 sends nothing).
 */

let setting: { level: number; note: string } | null = null;
const saved: Array<Record<string, unknown>> = [];

const handlers = () => [
    http.get('*/api/boiler/get', () => ok({ boilerId: 3, name: '一号锅炉' })),
    http.get('*/api/boiler/setting', ({ request }) =>
        ok(new URL(request.url).searchParams.get('boilerId') === '3' ? setting : null),
    ),
    http.post('*/api/boiler/setting/save', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        saved.push(body);
        setting = { level: Number(body.level), note: String(body.note) };
        return ok(setting);
    }),
];

const boilers = defineResource<AnyPaths>({
    name: 'boilers',
    label: '锅炉',
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/boiler/:boilerId',
            title: '锅炉详情',
            record: { call: 'get', params: ({ route }) => ({ boilerId: route.boilerId }) },
            header: { title: ({ record }) => String(record.name) },
            sections: [
                {
                    kind: 'fields',
                    title: '当前设定',
                    source: { call: 'setting', params: ({ record }) => ({ boilerId: record.boilerId }) },
                    fields: [
                        ['level', { label: '档位' }],
                        ['note', { label: '说明' }],
                    ],
                    empty: { text: '尚未设定', hint: ({ record }) => `${String(record.name)}还没有设定，点击“设定”` },
                    actions: [
                        {
                            kind: 'form',
                            label: '设定',
                            title: '设定档位',
                            fields: [
                                ['level', { label: '档位', required: true }],
                                [
                                    'note',
                                    {
                                        label: '说明',
                                        formHelperText: (v) => `已输入 ${String(v.note ?? '').length} 字`,
                                    },
                                ],
                            ],
                            schema: yup.object({ level: yup.number().typeError('请输入档位').required('请输入档位') }),
                            defaults: ({ record }) => ({ level: record.level ?? '', note: record.note ?? '' }),
                            confirm: ({ values, page }) =>
                                `确定把${String(page?.name)}设为 ${String(values?.level)} 档吗？`,
                            confirmTitle: '确认设定',
                            submit: {
                                call: 'save',
                                params: ({ values, page }) => ({ boilerId: page?.boilerId, ...values }),
                            },
                            success: '已设定',
                            refresh: ['boilers'],
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            get: { get: '/api/boiler/get', read: 'data' },
            setting: { get: '/api/boiler/setting', read: 'data' },
            save: { post: '/api/boiler/setting/save', body: 'json', read: 'data' },
        },
    },
});

describe('fields over a call, live helper text, a form that asks first', () => {
    beforeEach(() => {
        setting = null;
        saved.length = 0;
        mswServer.use(...handlers());
    });

    it('shows the empty state, asks before saving (取消 sends nothing), then describes the answer', async () => {
        const user = userEvent.setup();
        renderDefinitions([boilers], '/boiler/3');
        const section = await screen.findByRole('region', { name: '当前设定' }, { timeout: 20_000 });
        expect(await within(section).findByText('尚未设定')).toBeInTheDocument();
        expect(within(section).getByText('一号锅炉还没有设定，点击“设定”')).toBeInTheDocument();

        await user.click(within(section).getByRole('button', { name: '设定' }));
        const dialog = await screen.findByRole('dialog', { name: '设定档位' });
        expect(within(dialog).getByText('已输入 0 字')).toBeInTheDocument();
        await user.type(within(dialog).getByRole('textbox', { name: /说明/ }), '夜间');
        expect(await within(dialog).findByText('已输入 2 字')).toBeInTheDocument();
        await user.type(within(dialog).getByRole('textbox', { name: /档位/ }), '4');

        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        const ask = await screen.findByRole('dialog', { name: '确认设定' });
        expect(ask).toHaveTextContent('确定把一号锅炉设为 4 档吗？');
        await user.click(within(ask).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '确认设定' })).not.toBeInTheDocument());
        expect(saved).toEqual([]);
        expect(screen.getByRole('dialog', { name: '设定档位' })).toBeInTheDocument();

        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        await user.click(
            within(await screen.findByRole('dialog', { name: '确认设定' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('已设定')).toBeInTheDocument();
        expect(saved).toEqual([{ boilerId: 3, level: 4, note: '夜间' }]);
        await waitFor(() => expect(within(section).getByLabelText('档位', { selector: 'dd' })).toHaveTextContent('4'));
        expect(within(section).getByLabelText('说明', { selector: 'dd' })).toHaveTextContent('夜间');
        expect(within(section).queryByText('尚未设定')).not.toBeInTheDocument();
    });
});
