import { randomUUID } from 'node:crypto';
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import type { FlowMessage } from './types';
import { atPath, finite, isNumber, jsonText, toText } from './values';

dayjs.extend(utc);
dayjs.extend(timezone);

/** A function of the flow dialect: how many arguments it takes and what it answers (NULL for arguments it cannot use). */
export interface FlowFunction {
    min: number;
    /** Infinity when it takes any number. */
    max: number;
    /** `timeZone` is the zone timestamp(format) writes times in (an IANA name). */
    call: (args: unknown[], message: FlowMessage, timeZone: string) => unknown;
    /** Why a constant argument cannot do (Chinese), or undefined; `constants` holds undefined where not constant. */
    check?: (constants: unknown[]) => string | undefined;
}

const fixed = (count: number, call: FlowFunction['call']): FlowFunction => ({ min: count, max: count, call });

/** A function of strings: NULL unless each argument is one. */
const ofStrings = (count: number, fn: (...s: string[]) => unknown): FlowFunction =>
    fixed(count, (args) => (args.every((a) => typeof a === 'string') ? fn(...(args as string[])) : null));

/** A function of numbers: NULL unless each argument is one, and NULL for a result that is not a finite number. */
const ofNumbers = (min: number, max: number, fn: (...n: number[]) => number | null): FlowFunction => ({
    min,
    max,
    call: (args) => {
        if (!args.every(isNumber)) return null;
        const result = fn(...(args as number[]));
        return result === null ? null : finite(result);
    },
});

const MESSAGE_FUNCTIONS: Record<string, FlowFunction> = {
    devicename: fixed(0, (_, message) => message.deviceName),
    productkey: fixed(0, (_, message) => message.productKey),
    messageid: fixed(0, (_, message) => message.messageId),
    topic: { min: 0, max: 1, call: ([n], message) => (n === undefined ? message.topic : topicLevel(message.topic, n)) },
    timestamp: {
        min: 0,
        max: 1,
        call: ([format], message, timeZone) =>
            format === undefined ? message.timestamp : formatTime(message.timestamp, format, timeZone),
    },
    payload: {
        min: 0,
        max: 1,
        call: ([format], message) =>
            format === undefined ? message.payload : format === 'json' ? jsonText(message.payload) : null,
        check: ([format]) => (format === undefined || format === 'json' ? undefined : "的参数只能是 'json'"),
    },
    newuuid: fixed(0, () => randomUUID()),
};

const STRING_FUNCTIONS: Record<string, FlowFunction> = {
    concat: { min: 1, max: Infinity, call: concat },
    lower: ofStrings(1, (s) => s.toLowerCase()),
    upper: ofStrings(1, (s) => s.toUpperCase()),
    length: ofStrings(1, (s) => s.length),
    trim: ofStrings(1, (s) => s.trim()),
    replace: ofStrings(3, (s, from, to) => (from === '' ? s : s.replaceAll(from, to))),
    startswith: ofStrings(2, (s, prefix) => s.startsWith(prefix)),
    endswith: ofStrings(2, (s, suffix) => s.endsWith(suffix)),
    substring: { min: 2, max: 3, call: substring },
};

const NUMERIC_FUNCTIONS: Record<string, FlowFunction> = {
    abs: ofNumbers(1, 1, Math.abs),
    round: ofNumbers(1, 2, round),
    floor: ofNumbers(1, 1, Math.floor),
    ceil: ofNumbers(1, 1, Math.ceil),
    power: ofNumbers(2, 2, Math.pow),
    sqrt: ofNumbers(1, 1, (x) => (x < 0 ? null : Math.sqrt(x))),
    log: ofNumbers(1, 2, log),
};

const JSON_FUNCTIONS: Record<string, FlowFunction> = {
    json_get: fixed(2, ([value, path]) => (typeof path === 'string' ? atPath(jsonValue(value), jsonPath(path)) : null)),
    to_json: fixed(1, ([value]) => (value === null ? null : jsonText(value))),
    from_json: fixed(1, ([text]) => (typeof text === 'string' ? parseJson(text) : null)),
    coalesce: { min: 1, max: Infinity, call: (args) => args.find((a) => a !== null) ?? null },
};

/**
 * The dialect's functions by lower-case name (names are case-insensitive). The list the console documents:
 * deviceName() productKey() messageId() topic() topic(n) timestamp() timestamp(format) payload() payload('json')
 * newuuid(); concat lower upper length trim replace startswith endswith substring; abs round floor ceil power sqrt log;
 * json_get to_json from_json coalesce.
 */
export const FLOW_FUNCTIONS: ReadonlyMap<string, FlowFunction> = new Map(
    Object.entries({ ...MESSAGE_FUNCTIONS, ...STRING_FUNCTIONS, ...NUMERIC_FUNCTIONS, ...JSON_FUNCTIONS }),
);

/** Level n (1-based, the empty level before a leading '/' not counted, as Alibaba counts) of a topic, else NULL. */
function topicLevel(topic: string, n: unknown): string | null {
    if (!Number.isInteger(n) || (n as number) < 1) return null;
    const levels = topic.startsWith('/') ? topic.slice(1).split('/') : topic.split('/');
    return levels[(n as number) - 1] ?? null;
}

function concat(args: unknown[]): string | null {
    let text = '';
    for (const arg of args) {
        const part = toText(arg);
        if (part === null) return null;
        text += part;
    }
    return text;
}

/** SQL's SUBSTRING: `start` 1-based, or counted from the end when negative; `length` characters at most. */
function substring([s, start, length]: unknown[]): string | null {
    if (typeof s !== 'string' || !Number.isInteger(start) || (length !== undefined && !Number.isInteger(length)))
        return null;
    const from = (start as number) > 0 ? (start as number) - 1 : s.length + (start as number);
    if ((start as number) === 0 || from < 0) return '';
    return length === undefined ? s.slice(from) : s.slice(from, from + Math.max(0, length as number));
}

/** Rounds half away from zero to `digits` decimals (negative: tens, hundreds), in decimal rather than binary steps. */
function round(x: number, digits = 0): number {
    if (!Number.isInteger(digits)) return NaN;
    const shifted = Number(`${Math.abs(x)}e${digits}`);
    if (!Number.isFinite(shifted)) return (Math.sign(x) * Math.round(Math.abs(x) * 10 ** digits)) / 10 ** digits;
    return Math.sign(x) * Number(`${Math.round(shifted)}e${-digits}`) || 0;
}

/** log(x) is the natural logarithm; log(base, x) as SQL writes it. NULL outside their domains. */
function log(a: number, b?: number): number | null {
    if (b === undefined) return a > 0 ? Math.log(a) : null;
    if (a <= 0 || a === 1 || b <= 0) return null;
    if (a === 2) return Math.log2(b);
    if (a === 10) return Math.log10(b);
    return Math.log(b) / Math.log(a);
}

function parseJson(text: string): unknown {
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return null;
    }
}

/** json_get's document: an object or array as it is, a string read as JSON. */
function jsonValue(value: unknown): unknown {
    return typeof value === 'string' ? parseJson(value) : value;
}

const jsonPaths = new Map<string, (string | number)[]>();

/** 'a.b[0].c' as keys and indexes, remembered (a flow usually asks the same few paths). */
function jsonPath(path: string): (string | number)[] {
    let segments = jsonPaths.get(path);
    if (!segments) {
        segments = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
        if (jsonPaths.size > 1000) jsonPaths.clear();
        jsonPaths.set(path, segments);
    }
    return segments;
}

const dayjsFormats = new Map<string, string>();

/** timestamp(format): the message's time in `timeZone`, the format written as Java's (yyyy-MM-dd HH:mm:ss.SSS). */
function formatTime(ms: number, format: unknown, timeZone: string): string | null {
    if (typeof format !== 'string' || !Number.isFinite(ms)) return null;
    let pattern = dayjsFormats.get(format);
    if (pattern === undefined) {
        pattern = javaToDayjs(format);
        if (dayjsFormats.size > 1000) dayjsFormats.clear();
        dayjsFormats.set(format, pattern);
    }
    return dayjs(ms).tz(timeZone).format(pattern);
}

/** Java's date pattern letters as dayjs's (y→Y, d→D, a→A; 'quoted' text kept as it is); dayjs's own are left. */
function javaToDayjs(format: string): string {
    return format.replace(/'([^']*)'|[yda]/g, (token, literal: string | undefined) => {
        if (literal !== undefined) return literal === '' ? "'" : `[${literal}]`;
        return token === 'y' ? 'Y' : token === 'd' ? 'D' : 'A';
    });
}
