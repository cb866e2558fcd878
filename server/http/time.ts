import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(utc);
dayjs.extend(timezone);

export const TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** The platform's time string: 'YYYY-MM-DD HH:mm:ss' in the server's zone (TZ). */
export function formatTime(value: Date | string | null | undefined, timeZone: string): string | null {
    if (value === null || value === undefined) return null;
    return dayjs(value).tz(timeZone).format(TIME_FORMAT);
}
