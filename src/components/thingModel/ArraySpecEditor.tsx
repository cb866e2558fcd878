import { useId } from 'react';
import { FormControl, FormControlLabel, FormLabel, Radio, RadioGroup, Stack, TextField } from '@mui/material';
import { DATA_TYPE_LABELS, type DataTypeName } from '../../../schemas/thingModel';
import type { DataTypeForm } from './form';
import type { Unit } from './model';
import { StructEditor } from './StructEditor';

export interface ArraySpecEditorProps {
    value: DataTypeForm;
    onChange: (patch: Partial<DataTypeForm>) => void;
    units: Unit[];
    itemTypes: DataTypeName[];
}

/** 元素类型 and 元素个数 of an array; an array of structs edits the struct's members too. */
export function ArraySpecEditor({ value, onChange, units, itemTypes }: ArraySpecEditorProps) {
    const labelId = useId();
    return (
        <Stack spacing={2}>
            <FormControl>
                <FormLabel id={labelId} required>
                    元素类型
                </FormLabel>
                <RadioGroup
                    row
                    aria-labelledby={labelId}
                    value={value.itemType}
                    onChange={(e) => onChange({ itemType: e.target.value as DataTypeName })}
                >
                    {itemTypes.map((t) => (
                        <FormControlLabel
                            key={t}
                            value={t}
                            control={<Radio size="small" />}
                            label={DATA_TYPE_LABELS[t]}
                        />
                    ))}
                </RadioGroup>
            </FormControl>
            <TextField
                required
                type="number"
                label="元素个数"
                value={value.size}
                onChange={(e) => onChange({ size: e.target.value })}
                helperText="1~512"
                size="small"
                fullWidth
            />
            {value.itemType === 'struct' && (
                <StructEditor value={value.members} onChange={(members) => onChange({ members })} units={units} />
            )}
        </Stack>
    );
}
