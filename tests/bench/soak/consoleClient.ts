import * as hdr from 'hdr-histogram-js';
import { percentiles } from './figures';

/**
 * An operator's console during the soak: every 2 s the dashboard's calls, the device list and the message log
 * (/log's uplink tab) of the lamp product, as the console asks them, each timed from request to its whole answer.
 * An answer other than HTTP 200 with the envelope's success code (200; 0 under /api/device, server/http/envelope.ts)
 * counts as an error.
 */
const EVERY_MS = 2_000;

export interface ConsoleClient {
    minute(): { p50: number; p99: number; max: number; errors: number };
    total(): { p50: number; p99: number; max: number; errors: number; failing: Record<string, string> };
    stop(): void;
}

const calls = (productKey: string) => [
    '/api/dashboard/count',
    '/api/device/total',
    '/api/device/getCntGroupByCate',
    '/api/event/countByType',
    '/api/device/queryLonLatList',
    '/api/device/list?pageNumber=1&pageSize=10',
    `/api/log/messages?productKey=${productKey}&direction=up&pageNumber=1&pageSize=10`,
];

export function consoleClient(target: { url: string; cookie: string; productKey: string }): ConsoleClient {
    const build = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000 });
    let minute = build();
    const all = build();
    const errors = { minute: 0, all: 0 };
    /** The first failure of each call that failed: what to look at. */
    const failing: Record<string, string> = {};
    const timed = async (call: string) => {
        const t0 = performance.now();
        let why = '';
        try {
            const res = await fetch(target.url + call, { headers: { cookie: target.cookie } });
            const text = await res.text();
            const { code } = JSON.parse(text) as { code?: number };
            if (res.status !== 200 || (code !== 200 && code !== 0)) why = `${res.status} ${text}`;
        } catch (err) {
            why = String(err);
        }
        const ms = Math.max(1, Math.round(performance.now() - t0));
        minute.recordValue(ms);
        all.recordValue(ms);
        if (!why) return;
        errors.minute++;
        errors.all++;
        failing[call] ??= why.slice(0, 200);
    };
    const timer = setInterval(() => void Promise.all(calls(target.productKey).map(timed)), EVERY_MS);
    return {
        minute() {
            const figures = { ...percentiles(minute), errors: errors.minute };
            minute = build();
            errors.minute = 0;
            return figures;
        },
        total: () => ({ ...percentiles(all), errors: errors.all, failing }),
        stop: () => clearInterval(timer),
    };
}
