/**
 * The date, time, date-time and range pickers (@mui/x-date-pickers with dayjs, in Chinese). Loaded lazily by
 * ./index.tsx with the screens that show one, so the first screen does not carry them. MUI X's range picker is in
 * its paid Pro package: a range here is two community pickers, the end never before the start, with shortcuts.
 */
import 'dayjs/locale/zh-cn';
import type { ReactNode } from 'react';
import { Box, Button, FormHelperText, FormLabel } from '@mui/material';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';
import { zhCN } from '@mui/x-date-pickers/locales';
import { DesktopDatePicker } from '@mui/x-date-pickers/DesktopDatePicker';
import { DesktopDateTimePicker } from '@mui/x-date-pickers/DesktopDateTimePicker';
import { DesktopTimePicker } from '@mui/x-date-pickers/DesktopTimePicker';
import type { Dayjs } from 'dayjs';
import { useWatch } from 'react-hook-form';
import { useInput } from 'react-admin';
import type { DateOptions, FilterSpec } from '../vocabulary';
import type { FieldDefinition, FormValues } from '../types';
import { boundOf, displayFormatOf, fromDay, shortcutsOf, toDay, valueFormatOf, type DateKind } from './values';

const LOCALE_TEXT = zhCN.components.MuiLocalizationProvider.defaultProps.localeText;
/** dayjs's zh-cn says 三月 2026 in the calendar's header; a Chinese calendar says 2026年3月. */
const HEADER_FORMAT = 'YYYY年M月';

export function PickerProvider({ children }: { children: ReactNode }) {
    return (
        <LocalizationProvider dateAdapter={AdapterDayjs} adapterLocale="zh-cn" localeText={LOCALE_TEXT}>
            {children}
        </LocalizationProvider>
    );
}

export interface OnePickerProps {
    kind: Exclude<DateKind, 'dateRange'>;
    label: string;
    value: Dayjs | null;
    onChange: (day: Dayjs | null) => void;
    options?: DateOptions;
    min?: Dayjs;
    max?: Dayjs;
    required?: boolean;
    error?: string;
    helperText?: string;
    disabled?: boolean;
    readOnly?: boolean;
    fullWidth?: boolean;
    width?: number;
    size?: 'small' | 'medium';
}

/** One picker; half-typed text is not handed on (only a whole valid value, or null when cleared). */
export function OnePicker(props: OnePickerProps) {
    const { kind, label, value, onChange, options, min, max } = props;
    const shortcuts = shortcutsOf(kind, options).map((s) => ({
        label: s.label,
        getValue: () => {
            const v = s.value();
            return Array.isArray(v) ? v[0] : v;
        },
    }));
    const common = {
        label,
        value,
        format: displayFormatOf(kind, options),
        enableAccessibleFieldDOMStructure: false as const,
        disabled: props.disabled,
        readOnly: props.readOnly,
        onChange: (day: Dayjs | null) => {
            if (day === null || day.isValid()) onChange(day);
        },
        slotProps: {
            textField: {
                size: props.size,
                required: props.required,
                fullWidth: props.fullWidth,
                error: !!props.error,
                helperText: props.error ?? props.helperText,
                margin: 'dense' as const,
                sx: props.width ? { width: props.width } : undefined,
            },
            shortcuts: shortcuts.length ? { items: shortcuts } : undefined,
            field: { clearable: !props.required },
            calendarHeader: { format: HEADER_FORMAT },
        },
    };
    const views = options?.seconds ? (['hours', 'minutes', 'seconds'] as const) : (['hours', 'minutes'] as const);
    if (kind === 'time') {
        return <DesktopTimePicker {...common} ampm={false} views={[...views]} minTime={min} maxTime={max} />;
    }
    if (kind === 'date') {
        return <DesktopDatePicker {...common} minDate={min} maxDate={max} shouldDisableDate={options?.disabled} />;
    }
    return (
        <DesktopDateTimePicker
            {...common}
            ampm={false}
            views={['year', 'month', 'day', ...views]}
            minDateTime={min}
            maxDateTime={max}
            shouldDisableDate={options?.disabled}
        />
    );
}

interface RangeProps {
    label: string;
    start: Dayjs | null;
    end: Dayjs | null;
    /** Each end on its own; a shortcut sets both at once. */
    onChange: (start: Dayjs | null, end: Dayjs | null) => void;
    options?: DateOptions;
    min?: Dayjs;
    max?: Dayjs;
    required?: boolean;
    error?: string;
    helperText?: string;
    disabled?: boolean;
    size?: 'small' | 'medium';
    width?: number;
}

/** 开始{label} 至 结束{label}, then the shortcuts; the start is a minute's first millisecond, the end its last. */
function RangePickers({ label, start, end, onChange, options, min, max, ...rest }: RangeProps) {
    const shortcuts = shortcutsOf('dateRange', options);
    const endMin = start && (!min || start.isAfter(min)) ? start : min;
    const startMax = end && (!max || end.isBefore(max)) ? end : max;
    const unit = options?.seconds ? 'second' : 'minute';
    const one = (which: 'start' | 'end') => (
        <OnePicker
            kind="datetime"
            label={which === 'start' ? `开始${label}` : `结束${label}`}
            value={which === 'start' ? start : end}
            options={{ ...options, shortcuts: false }}
            min={which === 'start' ? min : endMin}
            max={which === 'start' ? startMax : max}
            required={rest.required}
            disabled={rest.disabled}
            size={rest.size}
            width={rest.width}
            onChange={(day) =>
                which === 'start'
                    ? onChange(day ? day.startOf(unit) : null, end)
                    : onChange(start, day ? day.endOf(unit) : null)
            }
        />
    );
    return (
        <Box role="group" aria-label={label} sx={{ display: 'flex', flexDirection: 'column' }}>
            <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', columnGap: 1 }}>
                {one('start')}
                <Box component="span" aria-hidden sx={{ color: 'text.secondary' }}>
                    至
                </Box>
                {one('end')}
                {shortcuts.map((s) => (
                    <Button
                        key={s.label}
                        size="small"
                        disabled={rest.disabled}
                        sx={{ minWidth: 0, px: 1 }}
                        onClick={() => {
                            const v = s.value();
                            const [from, to] = Array.isArray(v) ? v : [v.startOf('day'), v.endOf('day')];
                            onChange(from, to);
                        }}
                    >
                        {s.label}
                    </Button>
                ))}
            </Box>
            {rest.error || rest.helperText ? (
                <FormHelperText error={!!rest.error}>{rest.error ?? rest.helperText}</FormHelperText>
            ) : null}
        </Box>
    );
}

export interface FormDateProps {
    source: string;
    label: string;
    field: FieldDefinition;
    kind: DateKind;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
    onChange?: () => void;
}

/** A date input of a form (inputs 'date', 'time', 'datetime', 'dateRange'), its value kept in the form. */
export function FormDateInput(props: FormDateProps) {
    return (
        <PickerProvider>
            {props.kind === 'dateRange' ? <FormRange {...props} /> : <FormOne {...props} />}
        </PickerProvider>
    );
}

function useBounds(field: FieldDefinition, format: string) {
    const values = useWatch() as FormValues;
    const options = field.dates;
    return { min: boundOf(options?.min, format, values), max: boundOf(options?.max, format, values) };
}

function FormOne({ source, label, field, kind, isRequired, helperText, disabled, onChange }: FormDateProps) {
    const format = valueFormatOf(kind, field.dates);
    const { field: input, fieldState } = useInput({ source, defaultValue: field.defaultValue });
    const { min, max } = useBounds(field, format);
    return (
        <Box sx={{ my: 0.5 }}>
            <OnePicker
                kind={kind as Exclude<DateKind, 'dateRange'>}
                label={label}
                value={toDay(input.value, format)}
                onChange={(day) => {
                    input.onChange(fromDay(day, format));
                    onChange?.();
                }}
                options={field.dates}
                min={min}
                max={max}
                required={isRequired}
                error={fieldState.error?.message}
                helperText={helperText}
                disabled={disabled}
                readOnly={field.locked}
                fullWidth
            />
        </Box>
    );
}

function FormRange({ source, label, field, isRequired, helperText, disabled, onChange }: FormDateProps) {
    const format = valueFormatOf('dateRange', field.dates);
    const startInput = useInput({ source });
    const endInput = useInput({ source: field.dates?.to ?? `${source}End` });
    const { min, max } = useBounds(field, format);
    const error = startInput.fieldState.error?.message ?? endInput.fieldState.error?.message;
    return (
        <Box sx={{ my: 0.5 }}>
            <FormLabel required={isRequired} sx={{ fontSize: 14 }}>
                {label}
            </FormLabel>
            <RangePickers
                label={label}
                start={toDay(startInput.field.value, format)}
                end={toDay(endInput.field.value, format)}
                onChange={(start, end) => {
                    startInput.field.onChange(fromDay(start, format));
                    endInput.field.onChange(fromDay(end, format));
                    onChange?.();
                }}
                options={field.dates}
                min={min}
                max={max}
                error={error}
                helperText={helperText}
                disabled={disabled || field.locked}
            />
        </Box>
    );
}

/** The 'dateRange' filter: both ends travel as epoch-millisecond text; either end may stay open. */
export function DateRangeFilterPickers({
    filter,
    from,
    to,
    onChange,
}: {
    filter: FilterSpec;
    from: string;
    to: string;
    /** Both ends at once (the URL changes once), as epoch-ms text; '' is an open end. */
    onChange: (from: string, to: string) => void;
}) {
    const text = (day: Dayjs | null) => (day ? String(day.valueOf()) : '');
    const start = toDay(from, 'ms');
    const end = toDay(to, 'ms');
    return (
        <PickerProvider>
            <RangePickers
                label={filter.label}
                start={start}
                end={end}
                options={filter.dates}
                min={boundOf(filter.dates?.min, 'ms', {})}
                max={boundOf(filter.dates?.max, 'ms', {})}
                size="small"
                width={240}
                onChange={(s, e) => {
                    if (text(s) !== from || text(e) !== to) onChange(text(s), text(e));
                }}
            />
        </PickerProvider>
    );
}
