/**
 * The 'timeRange' input: two time pickers, 开始 and 结束, and 次日 beside an end not after the start (the range
 * crosses midnight). The value is `{ start: 'HH:mm', end: 'HH:mm' }`, null once both ends are cleared; its rule is
 * `timeRangeRule` (../timeRange). Loaded lazily with the other pickers.
 */
import { Box, Chip, FormHelperText, FormLabel } from '@mui/material';
import dayjs, { type Dayjs } from 'dayjs';
import { useInput } from 'react-admin';
import { crossesMidnight, timeRangeEnds, type TimeRange } from '../timeRange';
import type { EngineInputProps } from '../inputs/fieldView';
import { OnePicker, PickerProvider } from './Pickers';

/** The engine's own input props (src/engine/inputs/fieldView.ts). */
export type FormTimeRangeProps = EngineInputProps;

const asDay = (hhmm: string): Dayjs | null => {
    const day = dayjs(hhmm, 'HH:mm', true);
    return hhmm && day.isValid() ? day : null;
};

/** A time range of the form, its value `{ start, end }` kept in the form (null when both ends are empty). */
export function FormTimeRangeInput(props: FormTimeRangeProps) {
    return (
        <PickerProvider>
            <TimeRangePickers {...props} />
        </PickerProvider>
    );
}

function TimeRangePickers({ source, label, field, isRequired, helperText, disabled, onChange }: FormTimeRangeProps) {
    const { field: input, fieldState } = useInput({ source, defaultValue: field.defaultValue ?? null });
    const ends = timeRangeEnds(input.value);
    const set = (which: keyof TimeRange, day: Dayjs | null) => {
        const next = { ...ends, [which]: day ? day.format('HH:mm') : '' };
        input.onChange(next.start || next.end ? next : null);
        onChange?.();
    };
    const error = fieldState.error?.message;
    const one = (which: keyof TimeRange) => (
        <OnePicker
            kind="time"
            label={`${label}${which === 'start' ? '开始' : '结束'}`}
            value={asDay(ends[which])}
            onChange={(day) => set(which, day)}
            required={isRequired}
            disabled={disabled}
            readOnly={field.locked}
            width={170}
        />
    );
    return (
        <Box sx={{ my: 0.5 }}>
            <FormLabel required={isRequired} error={!!error} sx={{ fontSize: 14 }}>
                {label}
            </FormLabel>
            <Box role="group" aria-label={label} sx={{ display: 'flex', alignItems: 'center', columnGap: 1 }}>
                {one('start')}
                <Box component="span" aria-hidden sx={{ color: 'text.secondary' }}>
                    至
                </Box>
                {one('end')}
                {crossesMidnight(input.value) ? (
                    <Chip size="small" color="warning" variant="outlined" label="次日" title="结束时间在次日" />
                ) : null}
            </Box>
            {error || helperText ? <FormHelperText error={!!error}>{error ?? helperText}</FormHelperText> : null}
        </Box>
    );
}
