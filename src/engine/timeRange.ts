/**
 * A time range of a day that may cross midnight (rotas, rule windows, quiet hours): `{ start: 'HH:mm', end: 'HH:mm' }`,
 * an end not after the start being on the next day (22:00–06:00 is 22:00 to 次日 06:00). The input (type or input
 * 'timeRange') shows 次日 beside such an end; `timeRangeRule` is its yup rule, for definitions' schemas and the
 * server's. Light (yup only), so schemas shared with the server can import it.
 */
import * as yup from 'yup';

/** A time range's value: both ends 'HH:mm'; `end` not after `start` is on the next day. */
export interface TimeRange {
    start: string;
    end: string;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The value's two ends as text ('' when missing); null, undefined and '' are an empty range. */
export function timeRangeEnds(value: unknown): TimeRange {
    if (!value || typeof value !== 'object') return { start: '', end: '' };
    const v = value as Partial<Record<keyof TimeRange, unknown>>;
    return { start: text(v.start), end: text(v.end) };
}

/** Whether the range ends on the next day: both ends set and the end not after the start. */
export function crossesMidnight(value: unknown): boolean {
    const { start, end } = timeRangeEnds(value);
    return HHMM.test(start) && HHMM.test(end) && end <= start;
}

/** How a range reads in lists and pages: '08:00–18:00', '22:00–次日 06:00'; '' when empty. */
export function timeRangeText(value: unknown): string {
    const { start, end } = timeRangeEnds(value);
    if (!start && !end) return '';
    return `${start}–${crossesMidnight(value) ? '次日 ' : ''}${end}`;
}

export interface TimeRangeRuleOptions {
    /** What the range is called in the messages (default 时间段): 请选择生效时段的结束时间. */
    label?: string;
    /** An empty range is refused with this message (true: 请选择<label>). Default: an empty range is allowed. */
    required?: boolean | string;
    /** An end equal to the start (a whole day) is allowed (default false: 开始和结束时间不能相同). */
    allowSame?: boolean;
}

/** The messages of `timeRangeRule` for a range called `label`. */
export function timeRangeMessages(label = '时间段') {
    return {
        required: `请选择${label}`,
        start: `请选择${label}的开始时间`,
        end: `请选择${label}的结束时间`,
        format: `${label}的时间格式应为 HH:mm`,
        same: `${label}的开始和结束时间不能相同`,
    };
}

/** The first thing wrong with a range, or undefined when it is valid. */
export function timeRangeProblem(value: unknown, options: TimeRangeRuleOptions = {}): string | undefined {
    const words = timeRangeMessages(options.label);
    const { start, end } = timeRangeEnds(value);
    if (!start && !end) {
        if (!options.required) return undefined;
        return typeof options.required === 'string' ? options.required : words.required;
    }
    if (!start) return words.start;
    if (!end) return words.end;
    if (!HHMM.test(start) || !HHMM.test(end)) return words.format;
    if (start === end && !options.allowSame) return words.same;
    return undefined;
}

/**
 * The yup rule of a time range: both ends or neither (unless `required`), each 'HH:mm', not equal unless
 * `allowSame`; an end before the start is valid (the next day). Empty ranges read as null.
 */
export function timeRangeRule(options: TimeRangeRuleOptions = {}) {
    return yup
        .mixed<TimeRange>()
        .nullable()
        .transform((value: unknown) => {
            const ends = timeRangeEnds(value);
            return ends.start || ends.end ? ends : null;
        })
        .test('timeRange', function check(value) {
            const problem = timeRangeProblem(value, options);
            return problem ? this.createError({ message: problem }) : true;
        });
}
