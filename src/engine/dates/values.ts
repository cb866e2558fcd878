/**
 * The date inputs' values without the pickers: what a value means as a day, how a chosen day is kept, the bounds and
 * the shortcuts. Light (dayjs only), so lists and forms that hold dates do not load the pickers until one is shown.
 */
import dayjs, { type Dayjs } from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import type { DateBound, DateOptions, DateShortcut } from '../vocabulary';
import type { FormValues } from '../types';

dayjs.extend(customParseFormat);

export type DateKind = 'date' | 'time' | 'datetime' | 'dateRange';

/** How a kind's value is kept unless `dates.valueFormat` says: days and times as text, instants as epoch ms. */
export function valueFormatOf(kind: DateKind, options?: DateOptions): string {
    if (options?.valueFormat) return options.valueFormat;
    if (kind === 'date') return 'YYYY-MM-DD';
    if (kind === 'time') return options?.seconds ? 'HH:mm:ss' : 'HH:mm';
    return 'ms';
}

/** What the input shows. */
export function displayFormatOf(kind: DateKind, options?: DateOptions): string {
    const clock = options?.seconds ? 'HH:mm:ss' : 'HH:mm';
    if (kind === 'date') return 'YYYY-MM-DD';
    if (kind === 'time') return clock;
    return `YYYY-MM-DD ${clock}`;
}

const blank = (v: unknown) => v === undefined || v === null || v === '';

/** A kept value as a day (null when blank or not a date in that form). */
export function toDay(value: unknown, format: string): Dayjs | null {
    if (blank(value)) return null;
    if (dayjs.isDayjs(value)) return value.isValid() ? value : null;
    if (format === 'ms') {
        if (typeof value === 'number') return dayjs(value);
        const text = String(value);
        return /^\d+$/.test(text) ? dayjs(Number(text)) : dayjs(text).isValid() ? dayjs(text) : null;
    }
    const d = dayjs(String(value), format, true);
    return d.isValid() ? d : null;
}

/** A chosen day in the kept form: epoch ms (a number) or text; null ('ms') or '' (text) when cleared. */
export function fromDay(day: Dayjs | null, format: string): string | number | null {
    if (!day || !day.isValid()) return format === 'ms' ? null : '';
    return format === 'ms' ? day.valueOf() : day.format(format);
}

/** A bound as a day: 'now', a value in the kept form, or one computed from the form values. */
export function boundOf(bound: DateBound | undefined, format: string, values: FormValues): Dayjs | undefined {
    if (bound === undefined) return undefined;
    if (bound === 'now') return dayjs();
    const value = typeof bound === 'function' ? bound(values) : bound;
    return toDay(value, format) ?? undefined;
}

/** 今天, 近7天, 近30天: whole days ending today (the range is inclusive to today's last millisecond). */
export function rangeShortcuts(): DateShortcut[] {
    const days = (n: number) => (): [Dayjs, Dayjs] => [
        dayjs()
            .subtract(n - 1, 'day')
            .startOf('day'),
        dayjs().endOf('day'),
    ];
    return [
        { label: '今天', value: days(1) },
        { label: '近7天', value: days(7) },
        { label: '近30天', value: days(30) },
    ];
}

/** A single picker's shortcut: today (date) or now (datetime, time). */
export function singleShortcuts(kind: DateKind): DateShortcut[] {
    return kind === 'date'
        ? [{ label: '今天', value: () => dayjs().startOf('day') }]
        : [{ label: '现在', value: () => dayjs() }];
}

/** The shortcuts a declaration asks for (ranges have them unless `shortcuts: false`). */
export function shortcutsOf(kind: DateKind, options?: DateOptions): DateShortcut[] {
    const asked = options?.shortcuts ?? kind === 'dateRange';
    if (asked === false) return [];
    if (asked === true) return kind === 'dateRange' ? rangeShortcuts() : singleShortcuts(kind);
    return asked;
}
