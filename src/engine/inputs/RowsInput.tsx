import { Box } from '@mui/material';
import { useMemo } from 'react';
import { useWatch } from 'react-hook-form';
import { FormInput } from '../inputs';
import type { FieldDefinition, FormValues } from '../types';
import type { EngineInputProps } from './fieldView';
import { DeleteRowButton, RowList, useRowArray } from './RowList';

export type RowsInputProps = EngineInputProps;

/** The row's own values, from the whole form's. */
const rowOf = (values: FormValues, source: string, index: number): FormValues => {
    const list = source.split('.').reduce<unknown>((at, part) => (at as FormValues | undefined)?.[part], values);
    return ((Array.isArray(list) ? list[index] : undefined) as FormValues | undefined) ?? {};
};

/**
 * A row's field: its functions of the form values also see the row as `values.$row`, and its `resets` name fields of
 * the same row. So a row's select can load choices for the row's own type (`params: (v) => ({ kind: v.$row.type })`).
 */
export function rowField(field: FieldDefinition, source: string, index: number): FieldDefinition {
    const withRow = (values: FormValues): FormValues => ({ ...values, $row: rowOf(values, source, index) });
    const prefix = (next: FormValues | undefined) =>
        next && Object.fromEntries(Object.entries(next).map(([k, v]) => [`${source}.${index}.${k}`, v]));
    const out: FieldDefinition = { ...field };
    if (field.visibleWhen) out.visibleWhen = (values) => field.visibleWhen!(withRow(values));
    if (field.formLabel) out.formLabel = (values) => field.formLabel!(withRow(values));
    if (field.choicesFrom) {
        const from = field.choicesFrom;
        out.choicesFrom = {
            ...from,
            ...(from.params ? { params: (values: FormValues) => from.params!(withRow(values)) } : {}),
            ...(from.keep
                ? { keep: (row: Record<string, unknown>, values: FormValues) => from.keep!(row, withRow(values)) }
                : {}),
        };
    }
    if (field.resets) {
        const resets = field.resets;
        out.resets = (value, values) => prefix(typeof resets === 'function' ? resets(value, withRow(values)) : resets);
    }
    return out;
}

/**
 * Repeatable row groups (input 'rows'): each row is a group of the declared fields side by side, with a delete button;
 * 添加 appends a row of `newRow` values, at most `max`. Every row field is a form field of its own
 * (`source.i.name`), so a schema's messages land beside the row they are about.
 */
export function RowsInput(props: RowsInputProps) {
    const { source, label, field, disabled } = props;
    const spec = field.rows!;
    const { rows, append, remove, message } = useRowArray(source);
    // Hidden fields take no room: a row shows only what applies to its kind.
    const values = useWatch() as FormValues;
    const fieldsOf = useMemo(
        () => (index: number) => spec.fields.map(([name, f]) => [name, rowField(f, source, index)] as const),
        [spec.fields, source],
    );

    return (
        <RowList
            {...props}
            empty={spec.empty ?? `暂无${label}`}
            count={rows.length}
            max={spec.max}
            unit="行"
            addLabel={spec.addLabel}
            onAdd={() => append({ ...(spec.newRow ?? {}) })}
            message={message}
        >
            {rows.map((row, index) => (
                <Box
                    key={row.id}
                    sx={
                        spec.columns
                            ? { display: 'grid', gridTemplateColumns: spec.columns, gap: 1, alignItems: 'start' }
                            : { display: 'flex', gap: 1, alignItems: 'flex-start' }
                    }
                    data-testid={`${source}-row`}
                    role="group"
                    aria-label={`${spec.rowLabel ?? label}第${index + 1}行`}
                >
                    {fieldsOf(index)
                        .filter(([, f]) => !f.visibleWhen || f.visibleWhen(values))
                        .map(([name, f]) => (
                            <Box key={name} sx={{ minWidth: 0, flex: '1 1 0' }}>
                                <FormInput source={`${source}.${index}.${name}`} field={f} disabled={disabled} />
                            </Box>
                        ))}
                    <DeleteRowButton
                        label={`删除${spec.rowLabel ?? label}第${index + 1}行`}
                        onClick={() => remove(index)}
                        disabled={disabled || (spec.min !== undefined && rows.length <= spec.min)}
                    />
                </Box>
            ))}
        </RowList>
    );
}
