import { Autocomplete, Stack, TextField, Typography } from '@mui/material';
import type { DataTypeForm } from './form';
import type { Unit } from './model';

export interface NumberSpecEditorProps {
    value: DataTypeForm;
    onChange: (patch: Partial<DataTypeForm>) => void;
    units: Unit[];
}

const unitLabel = (u: Unit) => `${u.name} / ${u.symbol}`;

/** 取值范围, 步长 and 单位 of an int, float or double. */
export function NumberSpecEditor({ value, onChange, units }: NumberSpecEditorProps) {
    const selected = units.find((u) => u.symbol === value.unit) ?? null;
    // A unit the list does not know (e.g. from an imported model) is still shown rather than dropped.
    const options = value.unit && !selected ? [...units, { symbol: value.unit, name: value.unit }] : units;

    return (
        <Stack spacing={2}>
            <Stack direction="row" spacing={1} alignItems="center">
                <TextField
                    required
                    type="number"
                    label="最小值"
                    value={value.min}
                    onChange={(e) => onChange({ min: e.target.value })}
                    size="small"
                    fullWidth
                />
                <Typography>~</Typography>
                <TextField
                    required
                    type="number"
                    label="最大值"
                    value={value.max}
                    onChange={(e) => onChange({ max: e.target.value })}
                    size="small"
                    fullWidth
                />
            </Stack>
            <TextField
                type="number"
                label="步长"
                value={value.step}
                onChange={(e) => onChange({ step: e.target.value })}
                size="small"
                fullWidth
            />
            <Autocomplete
                options={options}
                value={options.find((u) => u.symbol === value.unit) ?? null}
                onChange={(_, u) => onChange({ unit: u?.symbol ?? '' })}
                getOptionLabel={unitLabel}
                isOptionEqualToValue={(a, b) => a.symbol === b.symbol}
                noOptionsText="无匹配单位"
                size="small"
                renderInput={(params) => <TextField {...params} label="单位" placeholder="请选择单位" />}
            />
        </Stack>
    );
}
