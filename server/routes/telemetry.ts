import dayjs from 'dayjs';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { listProperties, messagesInRange, parseMethodFilter, propertyHistory } from '../domain/telemetry';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { positiveInt } from '../http/input';
import { TIME_FORMAT } from '../http/time';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** Longest history range: keeps the range's count a bounded index walk. */
export const MAX_HISTORY_DAYS = 31;
export const MAX_DETAIL_PAGE_SIZE = 100;

const TIME_TYPES = ['hour', 'day', 'week', 'month'] as const;

/** Page size 1..100 (absent: `fallback`); the console offers 10 / 20 / 50. */
export function detailPageSize(raw: string | undefined, fallback: number, message: string): number {
    if (raw === undefined || raw.trim() === '') return fallback;
    const size = positiveInt(raw, message);
    if (size > MAX_DETAIL_PAGE_SIZE) throw badRequest(message);
    return size;
}

function pageNumber(raw: string | undefined): number {
    return raw === undefined || raw.trim() === '' ? 1 : positiveInt(raw, '页码必须是正整数');
}

/**
 * 'YYYY-MM-DD HH:mm:ss' in the server's zone, or epoch milliseconds; undefined when absent. A string that does not
 * name a real instant (month 13, 25 o'clock) is refused rather than rolled over.
 */
export function parseTimeParam(raw: string | undefined, timeZone: string, message: string): Date | undefined {
    const value = raw?.trim() ?? '';
    if (value === '') return undefined;
    if (/^\d{1,15}$/.test(value)) return new Date(Number(value));
    if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) throw badRequest(message);
    const parsed = dayjs.tz(value, timeZone);
    if (!parsed.isValid() || parsed.tz(timeZone).format(TIME_FORMAT) !== value) throw badRequest(message);
    return parsed.toDate();
}

/** /api/device: properties, property history and events of one device (docs/platform-api.md "Device detail"). */
export function telemetryRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    app.get('/properties', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        return ok(c, { properties: await listProperties(db, deviceId, tz) });
    });

    app.get('/propertyHistory', async (c) => {
        const q = (name: string) => c.req.query(name);
        const deviceId = positiveInt(q('deviceId'), '缺少设备ID');
        const identifier = q('identifier')?.trim();
        if (!identifier) throw badRequest('缺少属性标识符');
        const size = detailPageSize(q('pageSize'), 10, '每页条数须为1~100的整数');
        const page = pageNumber(q('pageNumber'));
        const ascRaw = q('asc')?.trim() ?? '';
        if (!['', 'true', 'false'].includes(ascRaw)) throw badRequest('排序参数 asc 只能是 true 或 false');
        const timeHint = '，应为 YYYY-MM-DD HH:mm:ss 或毫秒时间戳';
        const end = parseTimeParam(q('endTime'), tz, `结束时间格式不正确${timeHint}`) ?? services.now();
        const start =
            parseTimeParam(q('startTime'), tz, `开始时间格式不正确${timeHint}`) ?? new Date(end.getTime() - HOUR);
        if (end.getTime() < start.getTime()) throw badRequest('结束时间不能早于开始时间');
        if (end.getTime() - start.getTime() > MAX_HISTORY_DAYS * DAY) throw badRequest('时间范围不能超过31天');
        const history = await propertyHistory(
            db,
            { deviceId, identifier, start, end, ascending: ascRaw === 'true', limit: size, offset: (page - 1) * size },
            tz,
        );
        return ok(c, history);
    });

    app.get('/events', async (c) => {
        const q = (name: string) => c.req.query(name);
        const deviceId = positiveInt(q('deviceId'), '缺少设备ID');
        const timeType = q('timeType')?.trim() || 'hour';
        if (!(TIME_TYPES as readonly string[]).includes(timeType))
            throw badRequest('时间类型须为 hour、day、week 或 month');
        const size = detailPageSize(q('pageSize'), 50, '每页条数须为1~100的整数');
        const page = pageNumber(q('nextPage'));
        const filter = parseMethodFilter(q('method'));
        const now = services.now();
        const since = dayjs(now)
            .subtract(1, timeType as (typeof TIME_TYPES)[number])
            .toDate();
        const { list, total } = await messagesInRange(
            db,
            { deviceId, filter, since, until: now, limit: size, offset: (page - 1) * size },
            tz,
        );
        return ok(c, { resultList: list, currentPage: page, totalCount: total, totalPage: Math.ceil(total / size) });
    });

    return app;
}
