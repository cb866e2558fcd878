/**
 * Values that satisfy the contract's rules, for the scaffolded test's rows and forms: a string within its length and
 * pattern, a number within its bounds, an enum's values, arrays and rows of such values, nested objects.
 */
import { typeOf, type Schema } from './contract';
import type { FieldPlan } from './fields';

/** A value that satisfies a string field's rules. */
export function sampleString(key: string, s: Schema, i: number, label: string): string {
    if (s.example !== undefined && i === 0) return String(s.example);
    if (s.enum?.length) return String(s.enum[i % s.enum.length]);
    if (s.format === 'email') return `user${i + 1}@example.com`;
    if (s.format === 'uri' || s.format === 'url') return `http://example.com/${key}${i + 1}`;
    const max = s.maxLength ?? 64;
    const candidates = [
        `${label}${i + 1}`,
        `${key}_${i + 1}`,
        `${key}${i + 1}`,
        `1.0.${i}`,
        `http://example.com/${key}${i + 1}`,
        `user${i + 1}@example.com`,
        `1380000000${i % 10}`,
        String(i + 1),
        'a'.repeat(64),
    ];
    if (s.example !== undefined) candidates.unshift(String(s.example));
    const re = s.pattern ? new RegExp(s.pattern) : undefined;
    const fit = candidates.find((c) => c.length <= max && (!re || re.test(c)) && c.length >= (s.minLength ?? 0));
    return fit ?? String(s.example ?? `${key}${i + 1}`);
}

const day = (i: number) => `2025-05-${String((i % 28) + 1).padStart(2, '0')}`;

/** A scalar value of the schema. */
export function sampleValue(key: string, s: Schema, i: number, label: string): unknown {
    const t = typeOf(s);
    if (s.enum?.length) return s.enum[i % s.enum.length];
    if (t === 'integer' || t === 'number') {
        if (typeof s.example === 'number' && i === 0) return s.example;
        const min = s.minimum ?? 1;
        const max = s.maximum ?? min + 1000;
        return Math.min(max, min + i);
    }
    if (t === 'boolean') return i % 2 === 0;
    if (s.format === 'date-time') return `${day(i)}T09:00:00Z`;
    if (s.format === 'date') return day(i);
    if (/Time$/.test(key)) return `${day(i)} 09:00:00`;
    return sampleString(key, s, i, label);
}

/** A field's value as the platform answers it: arrays of values or rows, JSON objects, scalars. */
export function sampleOf(f: FieldPlan, i: number): unknown {
    const s = f.schema;
    switch (f.kind) {
        case 'checkboxes':
            return [s.items!.enum![i % s.items!.enum!.length]];
        case 'tags':
            return [sampleValue(f.key, s.items ?? {}, i, f.label), sampleValue(f.key, s.items ?? {}, i + 1, f.label)];
        case 'rows':
            return [Object.fromEntries((f.rowFields ?? []).map((c) => [c.key, sampleOf(c, i)]))];
        case 'json':
            return typeOf(s) === 'array' ? [] : {};
        case 'file':
            return undefined;
        default:
            return sampleValue(f.key.split('.').pop()!, s, i, f.label);
    }
}

/** One record of these fields, dotted keys as nested objects (`timeWindow.start` in `timeWindow`). */
export function sampleRecord(fields: FieldPlan[], i: number, own: (f: FieldPlan) => unknown = (f) => sampleOf(f, i)) {
    const record: Record<string, unknown> = {};
    for (const f of fields) {
        const value = own(f);
        if (value === undefined) continue;
        const path = f.key.split('.');
        let at = record;
        for (const k of path.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
        at[path.at(-1)!] = value;
    }
    return record;
}
