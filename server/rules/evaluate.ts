import dayjs from 'dayjs';
import '../http/time';
import type { Condition, TimeWindow } from './types';

/** Pure parts of rule evaluation: comparisons, the all/any match, time-of-day windows, content templates. */

function compare(op: Condition['operator'], actual: unknown, value: unknown, value2: unknown): boolean {
    if (actual === undefined || actual === null) return false;
    if (op === '==' || op === '!=') {
        // 1 and true, '1' and 1 are the same value to a person writing a rule.
        const a = typeof actual === 'boolean' ? Number(actual) : actual;
        const same = typeof a === 'object' ? JSON.stringify(a) === JSON.stringify(value) : String(a) === String(value);
        return op === '==' ? same : !same;
    }
    const n = typeof actual === 'number' ? actual : typeof actual === 'string' ? Number(actual) : NaN;
    if (!Number.isFinite(n)) return false;
    const v = Number(value);
    switch (op) {
        case '>':
            return n > v;
        case '>=':
            return n >= v;
        case '<':
            return n < v;
        case '<=':
            return n <= v;
        default:
            return n >= v && n <= Number(value2);
    }
}

export interface EvalInput {
    /** The device's latest property values (those of this message merged over the ones before). */
    properties: Record<string, unknown>;
    /** The event of this message, if it is one. */
    event?: { identifier: string; values: Record<string, unknown> };
}

export function conditionHolds(c: Condition, input: EvalInput): boolean {
    if (c.source === 'event') {
        if (input.event?.identifier !== c.identifier) return false;
        return compare(c.operator, input.event.values[c.field ?? ''], c.value, c.value2);
    }
    return compare(c.operator, input.properties[c.identifier], c.value, c.value2);
}

/** No condition: holds. */
export function conditionsHold(conditions: Condition[], match: 'all' | 'any', input: EvalInput): boolean {
    if (!conditions.length) return true;
    return match === 'all'
        ? conditions.every((c) => conditionHolds(c, input))
        : conditions.some((c) => conditionHolds(c, input));
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `now` (in `timeZone`) is inside the window; a window whose end is before its start runs over midnight. */
export function inTimeWindow(window: TimeWindow | null, now: Date, timeZone: string): boolean {
    if (!window) return true;
    const local = dayjs(now).tz(timeZone);
    const m = local.hour() * 60 + local.minute();
    const start = minutes(window.start);
    const end = minutes(window.end);
    return start < end ? m >= start && m < end : m >= start || m < end;
}

/** `${name}` replaced by vars[name] (as text); unknown names stay as they are. `escape` for JSON bodies. */
export function fillTemplate(
    template: string,
    vars: Record<string, unknown>,
    escape: (s: string) => string = (s) => s,
): string {
    return template.replace(/\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/g, (all, name: string) => {
        if (!(name in vars)) return all;
        const v = vars[name];
        return escape(v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    });
}

/** A string's JSON-escaped inside (no quotes), for templates that build a JSON body. */
export const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);

type Test = (input: EvalInput) => boolean;

/** One condition as a function, its operands converted once (what conditionHolds does, per message without the work). */
function compileCondition(c: Condition): Test {
    const read: (input: EvalInput) => unknown =
        c.source === 'event'
            ? (input) => (input.event?.identifier === c.identifier ? input.event.values[c.field ?? ''] : undefined)
            : (input) => input.properties[c.identifier];
    if (c.operator === '==' || c.operator === '!=') {
        if (typeof c.value === 'object' && c.value !== null) return (input) => conditionHolds(c, input);
        const want = String(c.value);
        const eq = c.operator === '==';
        return (input) => {
            const x = read(input);
            if (x === undefined || x === null) return false;
            if (typeof x === 'object') return conditionHolds(c, input);
            return (String(typeof x === 'boolean' ? Number(x) : x) === want) === eq;
        };
    }
    const t = Number(c.value);
    const t2 = Number(c.value2);
    const num = (x: unknown) => (typeof x === 'number' ? x : typeof x === 'string' && x !== '' ? Number(x) : NaN);
    switch (c.operator) {
        case '>':
            return (input) => num(read(input)) > t;
        case '>=':
            return (input) => num(read(input)) >= t;
        case '<':
            return (input) => num(read(input)) < t;
        case '<=':
            return (input) => num(read(input)) <= t;
        default:
            return (input) => {
                const n = num(read(input));
                return n >= t && n <= t2;
            };
    }
}

/** The conditions as one function (all or any; none: always true), for the engine's per-message evaluation. */
export function compileConditions(conditions: Condition[], match: 'all' | 'any'): Test {
    const tests = conditions.map(compileCondition);
    if (!tests.length) return () => true;
    if (tests.length === 1) return tests[0];
    return match === 'all'
        ? (input) => {
              for (const t of tests) if (!t(input)) return false;
              return true;
          }
        : (input) => {
              for (const t of tests) if (t(input)) return true;
              return false;
          };
}
