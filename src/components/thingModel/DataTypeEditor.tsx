import { FormHelperText, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { DATA_TYPE_LABELS, DATA_TYPE_NAMES, type DataTypeName } from '../../../schemas/thingModel';
import type { DataTypeForm } from './form';
import { ARRAY_ITEM_TYPES, DATE_NOTE, MEMBER_TYPES, NUMERIC_TYPES, type Unit } from './model';
import { NumberSpecEditor } from './NumberSpecEditor';
import { EnumEditor } from './EnumEditor';
import { StructEditor } from './StructEditor';
import { ArraySpecEditor } from './ArraySpecEditor';

export interface DataTypeEditorProps {
    value: DataTypeForm;
    onChange: (value: DataTypeForm) => void;
    units: Unit[];
    /** A struct member: no struct, and no array of structs, inside it. */
    nested?: boolean;
    typeError?: string;
    specsError?: string;
}

/** 数据类型 and the specs editor of the chosen type; its errors come from the shared dataTypeSchema. */
export function DataTypeEditor({ value, onChange, units, nested, typeError, specsError }: DataTypeEditorProps) {
    const types: readonly DataTypeName[] = nested ? MEMBER_TYPES : DATA_TYPE_NAMES;
    const set = (patch: Partial<DataTypeForm>) => onChange({ ...value, ...patch });

    return (
        <Stack spacing={2}>
            <TextField
                select
                required
                label="数据类型"
                value={value.type}
                onChange={(e) => set({ type: e.target.value as DataTypeName })}
                error={!!typeError}
                helperText={typeError}
                fullWidth
                size="small"
            >
                {types.map((t) => (
                    <MenuItem key={t} value={t}>
                        {DATA_TYPE_LABELS[t]}
                    </MenuItem>
                ))}
            </TextField>
            {NUMERIC_TYPES.includes(value.type as DataTypeName) && (
                <NumberSpecEditor value={value} onChange={set} units={units} />
            )}
            {value.type === 'text' && (
                <TextField
                    required
                    type="number"
                    label="数据长度"
                    value={value.length}
                    onChange={(e) => set({ length: e.target.value })}
                    helperText="单位：字节，1~10240"
                    size="small"
                    fullWidth
                />
            )}
            {value.type === 'bool' && (
                <Stack spacing={1}>
                    <Typography variant="body2">布尔值（0 和 1 的含义）</Typography>
                    <Stack direction="row" spacing={1} alignItems="center">
                        <Typography sx={{ width: 24 }}>0 -</Typography>
                        <TextField
                            label="0 的含义"
                            placeholder="如：关"
                            value={value.boolFalse}
                            onChange={(e) => set({ boolFalse: e.target.value })}
                            size="small"
                            fullWidth
                        />
                    </Stack>
                    <Stack direction="row" spacing={1} alignItems="center">
                        <Typography sx={{ width: 24 }}>1 -</Typography>
                        <TextField
                            label="1 的含义"
                            placeholder="如：开"
                            value={value.boolTrue}
                            onChange={(e) => set({ boolTrue: e.target.value })}
                            size="small"
                            fullWidth
                        />
                    </Stack>
                </Stack>
            )}
            {value.type === 'enum' && (
                <EnumEditor value={value.enumItems} onChange={(enumItems) => set({ enumItems })} />
            )}
            {value.type === 'date' && (
                <TextField
                    label="时间格式"
                    value={DATE_NOTE}
                    size="small"
                    fullWidth
                    slotProps={{ input: { readOnly: true } }}
                />
            )}
            {value.type === 'struct' && (
                <StructEditor value={value.members} onChange={(members) => set({ members })} units={units} />
            )}
            {value.type === 'array' && (
                <ArraySpecEditor
                    value={value}
                    onChange={set}
                    units={units}
                    itemTypes={nested ? ARRAY_ITEM_TYPES.filter((t) => t !== 'struct') : ARRAY_ITEM_TYPES}
                />
            )}
            {specsError && <FormHelperText error>{specsError}</FormHelperText>}
        </Stack>
    );
}
