import { Box } from '@mui/material';
import { useState } from 'react';
import { Confirm, TextInput, useDataProvider } from 'react-admin';
import { failureText, useToast } from '../actions/shared';
import { runCall, useRefresh } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { useScope } from '../scope';
import type { FieldDefinition, Row } from '../types';
import type { EngineInputProps } from './fieldView';
import { DeleteRowButton, RowList, useRowArray } from './RowList';

export type KeyValueInputProps = EngineInputProps;

/**
 * Key / value rows (input 'keyValue'): add and remove, at most `max`. Each row's inputs are form fields of their
 * own (`source.i.key`), so the yup schema's messages land beside the row they are about.
 */
export function KeyValueInput(props: KeyValueInputProps) {
    const { source, label, field, disabled } = props;
    const spec = field.keyValue!;
    const { rows, append, remove, getValues, message } = useRowArray(source);
    const removal = useSavedRowRemoval(spec.remove, remove);

    return (
        <RowList
            {...props}
            empty={`暂无${label}`}
            count={rows.length}
            max={spec.max}
            unit="个"
            addLabel={spec.addLabel}
            onAdd={() => append({ key: '', value: '' })}
            message={message}
        >
            {rows.map((row, index) => (
                <Box
                    key={row.id}
                    sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr 40px', gap: 1, alignItems: 'start' }}
                    data-testid={`${source}-row`}
                >
                    <TextInput
                        source={`${source}.${index}.key`}
                        label={spec.keyLabel}
                        readOnly={disabled}
                        size="small"
                        fullWidth
                    />
                    <TextInput
                        source={`${source}.${index}.value`}
                        label={spec.valueLabel}
                        readOnly={disabled}
                        size="small"
                        fullWidth
                    />
                    <DeleteRowButton
                        label={`删除第${index + 1}行`}
                        onClick={() => {
                            const value = getValues(`${source}.${index}`) as Row;
                            if (spec.remove?.when(value)) removal.ask(index, value);
                            else remove(index);
                        }}
                        disabled={disabled}
                    />
                </Box>
            ))}
            {removal.dialog}
        </RowList>
    );
}

type Removal = NonNullable<NonNullable<FieldDefinition['keyValue']>['remove']>;

/** A saved row is deleted on the platform at once, after its confirmation; the row leaves the form when that succeeds. */
function useSavedRowRemoval(spec: Removal | undefined, remove: (index: number) => void) {
    const scope = useScope();
    const definition = useOptionalDefinition();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const refresh = useRefresh();
    const toast = useToast();
    const [asking, setAsking] = useState<{ index: number; row: Row } | null>(null);
    const [busy, setBusy] = useState(false);
    const run = async () => {
        if (!spec || !asking) return;
        setBusy(true);
        try {
            await runCall(dataProvider, spec.call, { ...scope, values: asking.row }, definition?.name);
            toast(spec.success ?? '删除成功');
            remove(asking.index);
            void refresh(undefined, spec.call.resource ?? definition?.name);
        } catch (error) {
            toast(failureText(error, spec.failure), 'error');
        } finally {
            setBusy(false);
            setAsking(null);
        }
    };
    const dialog = spec ? (
        <Confirm
            isOpen={!!asking}
            loading={busy}
            title="提示"
            content={asking ? spec.confirm(asking.row) : ''}
            confirm="删除"
            cancel="取消"
            onConfirm={() => void run()}
            onClose={() => (busy ? undefined : setAsking(null))}
        />
    ) : null;
    return { ask: (index: number, row: Row) => setAsking({ index, row }), dialog };
}
