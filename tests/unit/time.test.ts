import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import { describe, expect, it } from 'vitest';
import { formatTime, TIME_FORMAT } from '../../server/http/time';

dayjs.extend(utc);
dayjs.extend(timezone);

const zones = ['Asia/Shanghai', 'UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
const byDayjs = (d: Date | string, zone: string) => dayjs(d).tz(zone).format(TIME_FORMAT);

describe('formatTime', () => {
    it('writes every instant as dayjs does, across daylight-saving changes and odd offsets', () => {
        const from = Date.UTC(2025, 0, 1);
        for (const zone of zones) {
            // Every twelve hours of a year, and every quarter hour around each offset change (a second either side).
            const offset = (ms: number) => dayjs(ms).tz(zone).utcOffset();
            for (let ms = from; ms < from + 366 * 86_400_000; ms += 12 * 3_600_000) {
                const quarters = offset(ms) === offset(ms + 12 * 3_600_000) ? [0] : [...Array(48).keys()];
                for (const q of quarters) {
                    const at = ms + q * 15 * 60_000;
                    for (const d of [new Date(at - 1000), new Date(at + 999)])
                        expect(formatTime(d, zone)).toBe(byDayjs(d, zone));
                }
            }
        }
    }, 60_000);

    it('keeps dayjs answers for strings, invalid dates, far years and nothing', () => {
        expect(formatTime('2026-01-01 10:00:00', 'UTC')).toBe(byDayjs('2026-01-01 10:00:00', 'UTC'));
        expect(formatTime(new Date(Number.NaN), 'UTC')).toBe('Invalid Date');
        const old = new Date(Date.UTC(5, 5, 5, 5, 5, 5));
        expect(formatTime(old, 'Asia/Shanghai')).toBe(byDayjs(old, 'Asia/Shanghai'));
        expect(formatTime(null, 'UTC')).toBeNull();
        expect(formatTime(undefined, 'UTC')).toBeNull();
    });
});
