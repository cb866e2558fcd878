import { stringify } from 'csv-stringify/sync';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { dailyOnlineRates, daysOf, productDays, reportTotals, type ReportRange } from '../domain/report';
import { attachment, BOM } from '../http/download';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';

const DAY = 86_400_000;
/** The longest range a report covers (the message log keeps LOG_RETENTION_DAYS anyway). */
export const MAX_REPORT_DAYS = 92;

function epochMs(raw: string | undefined, label: string): Date | undefined {
    const s = raw?.trim() ?? '';
    if (s === '') return undefined;
    if (!/^\d{1,15}$/.test(s)) throw badRequest(`${label}格式不正确：应为毫秒时间戳`);
    return new Date(Number(s));
}

/** startTime / endTime (epoch ms, both optional): by default the last 7 days up to now. */
function rangeOf(q: Record<string, string>, now: Date, timeZone: string): ReportRange {
    const end = epochMs(q.endTime, '结束时间') ?? now;
    const start = epochMs(q.startTime, '开始时间') ?? new Date(end.getTime() - 7 * DAY);
    if (start > end) throw badRequest('开始时间不能晚于结束时间');
    if (end.getTime() - start.getTime() > MAX_REPORT_DAYS * DAY) {
        throw badRequest(`时间范围不能超过${MAX_REPORT_DAYS}天`);
    }
    return { start, end, timeZone };
}

const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

/** /api/report: the statistics report (/report): per day and product, from device_messages, alert_events, device_counts. */
export function reportRoutes({ db, config, now }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/daily', async (c) => {
        const at = now();
        const range = rangeOf(c.req.query(), at, config.timeZone);
        const [days, rows, totals, onlineRates] = await Promise.all([
            daysOf(db, range),
            productDays(db, range),
            reportTotals(db, range),
            dailyOnlineRates(db, range, at),
        ]);
        const byDay = days.map((day) => {
            const of = rows.filter((r) => r.day === day);
            const sum = (k: 'up' | 'down' | 'activeDevices' | 'urgent' | 'severe' | 'general') =>
                of.reduce((n, r) => n + r[k], 0);
            return {
                day,
                up: sum('up'),
                down: sum('down'),
                activeDevices: sum('activeDevices'),
                onlineRate: onlineRates.get(day) ?? 0,
                urgent: sum('urgent'),
                severe: sum('severe'),
                general: sum('general'),
            };
        });
        const products = new Map<string, { productKey: string; productName: string; up: number; down: number }>();
        for (const r of rows) {
            const p = products.get(r.productKey) ?? {
                productKey: r.productKey,
                productName: r.productName,
                up: 0,
                down: 0,
            };
            p.up += r.up;
            p.down += r.down;
            products.set(r.productKey, p);
        }
        return ok(c, {
            startTime: range.start.getTime(),
            endTime: range.end.getTime(),
            deviceTotal: totals.deviceTotal,
            onlineTotal: totals.onlineTotal,
            onlineRate: rate(totals.onlineTotal, totals.deviceTotal),
            upTotal: byDay.reduce((n, d) => n + d.up, 0),
            alertTotal: totals.alerts.urgent + totals.alerts.severe + totals.alerts.general,
            days: byDay,
            products: [...products.values()].sort((a, b) => b.up - a.up),
            rows,
        });
    });

    app.get('/export', async (c) => {
        const range = rangeOf(c.req.query(), now(), config.timeZone);
        const rows = await productDays(db, range);
        const header = [
            '日期',
            '产品名称',
            'ProductKey',
            '上行消息数',
            '下行消息数',
            '活跃设备数',
            '设备总数',
            '紧急告警',
            '严重告警',
            '一般告警',
        ];
        const body = stringify(
            [
                header,
                ...rows.map((r) => [
                    r.day,
                    r.productName,
                    r.productKey,
                    r.up,
                    r.down,
                    r.activeDevices,
                    r.deviceTotal,
                    r.urgent,
                    r.severe,
                    r.general,
                ]),
            ],
            { record_delimiter: 'windows' },
        );
        const days = await daysOf(db, range);
        const stamp = `${days[0]}_${days[days.length - 1]}`;
        return c.body(BOM + body, 200, {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': attachment(`统计报表_${stamp}.csv`, `report-${stamp}.csv`),
        });
    });
    return app;
}
