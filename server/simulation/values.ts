import { randomInt } from 'node:crypto';
import type { ThingFunction } from '../mqtt/directory';
import { checkValue, type TslDataType } from '../mqtt/thingValues';

/**
 * Values a simulated device reports, made from its product's thing model: random within each property's range
 * (int, float, double with min, max and step), one of its enum values, 0 or 1, text up to its length, a date,
 * struct members and array items alike; or the fixed values given per identifier.
 */

type Specs = Record<string, unknown>;

const numberOf = (v: unknown): number | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
};

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function decimalsOf(step: number | undefined): number {
    if (step === undefined || step <= 0) return 2;
    const text = String(step);
    const at = text.indexOf('.');
    return at < 0 ? 0 : Math.min(6, text.length - at - 1);
}

function randomNumber(type: string, specs: Specs): number {
    let min = numberOf(specs.min) ?? 0;
    let max = numberOf(specs.max) ?? (type === 'int' ? 100 : 100);
    if (max < min) [min, max] = [max, min];
    const step = numberOf(specs.step);
    if (type === 'int') {
        const lo = Math.ceil(min);
        const hi = Math.floor(max);
        if (hi <= lo) return lo;
        const s = step !== undefined && step >= 1 && Number.isInteger(step) ? step : 1;
        const steps = Math.floor((hi - lo) / s);
        return lo + s * (steps > 0 ? randomInt(steps + 1) : 0);
    }
    const places = decimalsOf(step);
    const value = min + Math.random() * (max - min);
    const rounded = Number(value.toFixed(places));
    return Math.min(max, Math.max(min, rounded));
}

/** A random value that fits `dataType` (undefined when the type is unknown). */
export function randomValue(dataType: TslDataType | null | undefined, depth = 0): unknown {
    if (!dataType || typeof dataType.type !== 'string') return undefined;
    const specs = (dataType.specs && !Array.isArray(dataType.specs) ? dataType.specs : {}) as Specs;
    switch (dataType.type) {
        case 'int':
        case 'float':
        case 'double':
            return randomNumber(dataType.type, specs);
        case 'bool':
            return randomInt(2);
        case 'enum': {
            const keys = Object.keys(specs).filter((k) => /^-?\d+$/.test(k));
            return keys.length ? Number(keys[randomInt(keys.length)]) : undefined;
        }
        case 'text': {
            const limit = numberOf(specs.length) ?? 16;
            const length = Math.max(1, Math.min(limit, 1 + randomInt(12)));
            // A letter first: text that reads as a number or JSON word is not mistaken for one on its way back.
            let out = ALPHABET[randomInt(52)];
            for (let i = 1; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
            return out.slice(0, Math.max(0, limit));
        }
        case 'date':
            return Date.now();
        case 'struct': {
            if (depth > 4) return {};
            const members = Array.isArray(dataType.specs) ? (dataType.specs as Specs[]) : [];
            const out: Record<string, unknown> = {};
            for (const m of members) {
                const v = randomValue(m.dataType as TslDataType, depth + 1);
                if (v !== undefined) out[String(m.identifier)] = v;
            }
            return out;
        }
        case 'array': {
            if (depth > 4) return [];
            const size = numberOf(specs.size) ?? 3;
            const count = Math.max(0, Math.min(size, 3));
            const item = specs.item as TslDataType | undefined;
            const out: unknown[] = [];
            for (let i = 0; i < count; i++) {
                const v = randomValue(item, depth + 1);
                if (v !== undefined) out.push(v);
            }
            return out;
        }
        default:
            return undefined;
    }
}

/**
 * A fixed value as typed in a form (text) made into the property's type: numbers for int/float/double/enum/date, 0
 * or 1 for bool (also true/false), JSON for struct and array, text as it is. Answers the value or why it does not fit.
 */
export function coerceValue(dataType: TslDataType | null, raw: unknown): { value: unknown } | { error: string } {
    const type = dataType?.type;
    let value: unknown = raw;
    if (typeof raw === 'string') {
        const text = raw.trim();
        if (type === 'int' || type === 'float' || type === 'double' || type === 'enum' || type === 'date') {
            value = text === '' || !Number.isFinite(Number(text)) ? raw : Number(text);
        } else if (type === 'bool') {
            value = text === 'true' ? 1 : text === 'false' ? 0 : text === '' ? raw : Number(text);
        } else if (type === 'struct' || type === 'array') {
            try {
                value = JSON.parse(text);
            } catch {
                return { error: type === 'struct' ? '应为 JSON 对象' : '应为 JSON 数组' };
            }
        }
    } else if (type === 'bool' && typeof raw === 'boolean') {
        value = raw ? 1 : 0;
    }
    const why = checkValue(dataType, value);
    return why ? { error: why } : { value };
}

/** One property post's values: each property of the model, random or fixed as the mode says. */
export function propertyPost(
    properties: Iterable<ThingFunction>,
    mode: 'random' | 'fixed',
    fixed: Record<string, unknown>,
): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const fn of properties) {
        if (mode === 'fixed') {
            if (fn.identifier in fixed) out[fn.identifier] = fixed[fn.identifier];
            continue;
        }
        const v = randomValue(fn.dataType);
        if (v !== undefined) out[fn.identifier] = v;
    }
    return out;
}

/** An event's output values, random within each parameter's type. */
export function eventValues(fn: ThingFunction): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const p of fn.outputData) {
        const v = randomValue(p.dataType);
        if (v !== undefined) out[p.identifier] = v;
    }
    return out;
}
