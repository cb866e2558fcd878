import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { Resolver } from 'react-hook-form';
import { yupResolver } from '@hookform/resolvers/yup';
import { AdminContext, Form, memoryStore } from 'react-admin';
import dayjs from 'dayjs';
import * as yup from 'yup';
import { describe, expect, it } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import { apiResources, type FieldDefinition, type FormValues } from '../../src/engine';
import { FormInput } from '../../src/engine/inputs';
import { i18nProvider } from '../../src/i18n';

/**
 * The date inputs (input 'date' | 'time' | 'datetime' | 'dateRange', src/engine/dates): Chinese pickers of
 * @mui/x-date-pickers with their value kept in the declared form, min / max, disabled days and shortcuts.
 */

function renderForm(
    inputs: Array<[string, FieldDefinition]>,
    defaultValues?: FormValues,
    schema?: yup.AnyObjectSchema,
) {
    const submitted: FormValues[] = [];
    render(
        <MemoryRouter>
            <AdminContext
                dataProvider={createDataProvider(apiResources([]))}
                i18nProvider={i18nProvider}
                store={memoryStore()}
            >
                <Form
                    defaultValues={defaultValues}
                    resolver={schema ? (yupResolver(schema) as Resolver) : undefined}
                    onSubmit={(values: FormValues) => void submitted.push(values)}
                    noValidate
                >
                    {inputs.map(([source, field]) => (
                        <FormInput key={source} source={source} field={field} />
                    ))}
                    <button type="submit">提交</button>
                </Form>
            </AdminContext>
        </MemoryRouter>,
    );
    return submitted;
}

async function submit(submitted: FormValues[]): Promise<FormValues> {
    const before = submitted.length;
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(submitted.length).toBe(before + 1));
    return submitted[submitted.length - 1];
}

describe('date inputs', () => {
    it('keeps a date as YYYY-MM-DD, a time as HH:mm and a date-time as epoch ms, shown in Chinese pickers', async () => {
        const submitted = renderForm(
            [
                ['day', { label: '生效日期', input: 'date' }],
                ['at', { label: '每天执行于', input: 'time' }],
                ['startAt', { label: '开始时间', type: 'datetime' }],
            ],
            { day: '2026-03-01', at: '', startAt: null },
        );
        const day = await screen.findByLabelText('生效日期');
        expect(day).toHaveValue('2026-03-01');
        fireEvent.change(await screen.findByLabelText('每天执行于'), { target: { value: '08:30' } });
        fireEvent.change(await screen.findByLabelText('开始时间'), { target: { value: '2026-03-02 09:15' } });
        expect(await submit(submitted)).toEqual({
            day: '2026-03-01',
            at: '08:30',
            startAt: new Date(2026, 2, 2, 9, 15).getTime(),
        });
        // The calendar speaks Chinese.
        fireEvent.click(screen.getAllByRole('button', { name: /选择日期/ })[0]);
        const dialog = await screen.findByRole('dialog');
        expect(within(dialog).getByText('2026年3月')).toBeInTheDocument();
        expect(within(dialog).getByText('一')).toBeInTheDocument();
    });

    it('refuses days outside min / max and the disabled ones, and a date-time shortcut sets now', async () => {
        const submitted = renderForm(
            [
                [
                    'day',
                    {
                        label: '升级日期',
                        input: 'date',
                        dates: {
                            min: '2026-03-02',
                            max: '2026-03-20',
                            disabled: (d) => d.day() === 0 || d.day() === 6,
                        },
                    },
                ],
                ['at', { label: '执行时间', input: 'datetime', dates: { shortcuts: true } }],
            ],
            { day: '2026-03-03', at: null },
        );
        fireEvent.click((await screen.findAllByRole('button', { name: /选择日期/ }))[0]);
        const calendar = await screen.findByRole('dialog');
        // March 2026: the 1st is before min, the 7th a Saturday, the 21st after max; the 4th a Wednesday.
        expect(within(calendar).getByRole('gridcell', { name: '1' })).toBeDisabled();
        expect(within(calendar).getByRole('gridcell', { name: '7' })).toBeDisabled();
        expect(within(calendar).getByRole('gridcell', { name: '21' })).toBeDisabled();
        fireEvent.click(within(calendar).getByRole('gridcell', { name: '4' }));
        await waitFor(() => expect(screen.getByLabelText('升级日期')).toHaveValue('2026-03-04'));

        fireEvent.click(screen.getAllByRole('button', { name: /选择日期/ })[1]);
        const before = Date.now();
        fireEvent.click(await screen.findByRole('button', { name: '现在' }));
        const values = await submit(submitted);
        expect(values.day).toBe('2026-03-04');
        expect(values.at as number).toBeGreaterThanOrEqual(dayjs(before).startOf('minute').valueOf() - 60_000);
        expect(values.at as number).toBeLessThanOrEqual(Date.now());
    });

    it('keeps a range in two fields with 今天 / 近7天 / 近30天, the end never before the start, checked by the schema', async () => {
        const schema = yup.object({
            from: yup.number().nullable().required('请选择开始时间'),
            until: yup.number().nullable().required('请选择结束时间'),
        });
        const submitted = renderForm(
            [['from', { label: '升级时段', input: 'dateRange', dates: { to: 'until' } }]],
            { from: null, until: null },
            schema,
        );
        const group = await screen.findByRole('group', { name: '升级时段' });
        fireEvent.click(screen.getByRole('button', { name: '提交' }));
        expect(await screen.findByText('请选择开始时间')).toBeInTheDocument();
        fireEvent.click(within(group).getByRole('button', { name: '近30天' }));
        const values = await submit(submitted);
        expect(values.from).toBe(dayjs().subtract(29, 'day').startOf('day').valueOf());
        expect(values.until).toBe(dayjs().endOf('day').valueOf());
        // The end's calendar does not offer a day before the start.
        const endInput = within(group).getByLabelText('结束升级时段');
        fireEvent.change(within(group).getByLabelText('开始升级时段'), { target: { value: '2026-03-10 00:00' } });
        fireEvent.change(endInput, { target: { value: '2026-03-12 00:00' } });
        const buttons = within(group).getAllByRole('button', { name: /选择日期/ });
        fireEvent.click(buttons[buttons.length - 1]);
        const calendar = await screen.findByRole('dialog');
        expect(within(calendar).getByRole('gridcell', { name: '9' })).toBeDisabled();
        expect(within(calendar).getByRole('gridcell', { name: '11' })).not.toBeDisabled();
    });
});
