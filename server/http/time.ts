import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(utc);
dayjs.extend(timezone);

export const TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/**
 * A zone's UTC offset (ms) per quarter hour of UTC time: every offset change of the tz database falls on a quarter
 * hour, so one Intl lookup serves the whole quarter. dayjs's tz() builds an Intl formatter per call, which was a
 * fifth of a device page's time (ten rows, three times each).
 */
const QUARTER_HOUR = 15 * 60 * 1000;
const offsets = new Map<string, Map<number, number>>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function offsetAt(ms: number, timeZone: string): number {
    let zone = offsets.get(timeZone);
    if (!zone) offsets.set(timeZone, (zone = new Map()));
    const quarter = Math.floor(ms / QUARTER_HOUR);
    let offset = zone.get(quarter);
    if (offset === undefined) {
        let format = formatters.get(timeZone);
        if (!format) {
            format = new Intl.DateTimeFormat('en-US', {
                timeZone,
                hourCycle: 'h23',
                year: 'numeric',
                month: 'numeric',
                day: 'numeric',
                hour: 'numeric',
                minute: 'numeric',
                second: 'numeric',
            });
            formatters.set(timeZone, format);
        }
        const start = quarter * QUARTER_HOUR;
        const part: Record<string, number> = {};
        for (const p of format.formatToParts(new Date(start))) if (p.type !== 'literal') part[p.type] = Number(p.value);
        offset = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second) - start;
        if (zone.size > 100_000) zone.clear();
        zone.set(quarter, offset);
    }
    return offset;
}

const FAST_FROM = Date.UTC(1001, 0, 1);
const FAST_UNTIL = Date.UTC(9999, 0, 1);
const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

/** The platform's time string: 'YYYY-MM-DD HH:mm:ss' in the server's zone (TZ). */
export function formatTime(value: Date | string | null | undefined, timeZone: string): string | null {
    if (value === null || value === undefined) return null;
    // Strings keep dayjs's reading of them (a zone-less string is local time); a Date takes the fast path.
    if (!(value instanceof Date)) return dayjs(value).tz(timeZone).format(TIME_FORMAT);
    const ms = value.getTime();
    // Invalid dates and years outside 1001-9998 (four digits in every zone) keep dayjs's answer.
    if (!(ms >= FAST_FROM && ms < FAST_UNTIL)) return dayjs(value).tz(timeZone).format(TIME_FORMAT);
    const local = new Date(Math.floor(ms / 1000) * 1000 + offsetAt(ms, timeZone));
    return (
        `${local.getUTCFullYear()}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())} ` +
        `${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())}:${pad2(local.getUTCSeconds())}`
    );
}
