import type { Condition, StoredRule } from './types';

/**
 * The rules of one product, indexed by their property conditions (docs/rules.md "Cost"), so that a property post
 * reaches only the rules that can hold for the device's values:
 *
 * - a rule whose conditions must `all` hold is an entry of one of its conditions (a comparison with a number, a range,
 *   an equality before an inequality): when that condition does not hold, the rule cannot;
 * - a rule whose conditions are `any` (OR) is an entry of each of its conditions: when none holds, the rule cannot;
 * - the others (event conditions, non-property triggers, no condition, a condition on an object value) are `plain`:
 *   evaluated on every message of the product.
 *
 * Per property: `>`, `>=`, `<`, `<=` sorted by threshold (a binary search), `between` sorted by its lower bound (the
 * upper one checked inline), `==` by value (a map), `!=` a list skipping the one value it excludes. Values compare as
 * the compiled conditions do (evaluate.ts): numbers and numeric text as numbers; true/false as 1/0 for equality.
 * Visiting may reach an entry twice (an `any` rule with two conditions that hold): the caller de-duplicates.
 */

type Range = '>' | '>=' | '<' | '<=';

interface Sorted<T> {
    keys: number[];
    items: T[];
}

interface PropertyIndex<T> {
    ranges: Map<Range, Sorted<T>>;
    between: Sorted<T> & { highs: number[] };
    equal: Map<string, T[]>;
    notEqual: { keys: string[]; items: T[] };
}

export interface RuleIndex<T> {
    /** Evaluated on every message. */
    plain: T[];
    /** Calls `visit` with every indexed item one of whose indexing conditions holds for `properties`. */
    visit(properties: Record<string, unknown>, visit: (item: T) => void): void;
    /** How many items are indexed (not plain). */
    indexed: number;
}

const RANGES = new Set(['>', '>=', '<', '<=']);

/** The condition as an index key, or undefined when the index cannot hold it. */
function keyOf(c: Condition): { kind: 'range' | 'between' | 'eq' | 'ne'; a: number | string; b?: number } | undefined {
    if (c.source !== 'property') return undefined;
    if (RANGES.has(c.operator)) {
        const a = Number(c.value);
        return Number.isFinite(a) ? { kind: 'range', a } : undefined;
    }
    if (c.operator === 'between') {
        const a = Number(c.value);
        const b = Number(c.value2);
        return Number.isFinite(a) && Number.isFinite(b) ? { kind: 'between', a, b } : undefined;
    }
    if (typeof c.value === 'object' && c.value !== null) return undefined;
    return { kind: c.operator === '==' ? 'eq' : 'ne', a: String(c.value) };
}

/** Rank of a condition as an `all` rule's guard: the narrower, the better. */
const RANK = { eq: 0, between: 1, range: 2, ne: 3 };

/** The conditions a rule is indexed under, or undefined for a plain rule. */
export function guardsOf(rule: StoredRule): Condition[] | undefined {
    if (!rule.conditions.length || !rule.triggers.every((t) => t.type === 'property')) return undefined;
    if (rule.match === 'any') return rule.conditions.every((c) => keyOf(c)) ? rule.conditions : undefined;
    let best: Condition | undefined;
    for (const c of rule.conditions) {
        const k = keyOf(c);
        if (k && (!best || RANK[k.kind] < RANK[keyOf(best)!.kind])) best = c;
    }
    return best && [best];
}

function bound(a: number[], v: number, upper: boolean): number {
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (upper ? a[mid] <= v : a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

function sortBy<T>(entries: Array<{ k: number; item: T; h?: number }>) {
    entries.sort((x, y) => x.k - y.k);
    return { keys: entries.map((e) => e.k), items: entries.map((e) => e.item), highs: entries.map((e) => e.h ?? 0) };
}

const numeric = (x: unknown) => (typeof x === 'number' ? x : typeof x === 'string' && x !== '' ? Number(x) : NaN);

export function buildIndex<T>(list: Array<{ rule: StoredRule; item: T }>): RuleIndex<T> {
    const plain: T[] = [];
    type Raw = {
        ranges: Map<Range, Array<{ k: number; item: T }>>;
        between: Array<{ k: number; h: number; item: T }>;
        equal: Map<string, T[]>;
        notEqual: { keys: string[]; items: T[] };
    };
    const raw = new Map<string, Raw>();
    let indexed = 0;
    for (const { rule, item } of list) {
        const guards = guardsOf(rule);
        if (!guards) {
            plain.push(item);
            continue;
        }
        indexed++;
        for (const c of guards) {
            let p = raw.get(c.identifier);
            if (!p) {
                p = { ranges: new Map(), between: [], equal: new Map(), notEqual: { keys: [], items: [] } };
                raw.set(c.identifier, p);
            }
            const k = keyOf(c)!;
            if (k.kind === 'range') {
                const op = c.operator as Range;
                const entries = p.ranges.get(op) ?? [];
                p.ranges.set(op, entries);
                entries.push({ k: k.a as number, item });
            } else if (k.kind === 'between') p.between.push({ k: k.a as number, h: k.b!, item });
            else if (k.kind === 'eq') {
                const items = p.equal.get(k.a as string) ?? [];
                p.equal.set(k.a as string, items);
                items.push(item);
            } else {
                p.notEqual.keys.push(k.a as string);
                p.notEqual.items.push(item);
            }
        }
    }
    const byProperty: Array<[string, PropertyIndex<T>]> = [...raw].map(([identifier, p]) => [
        identifier,
        {
            ranges: new Map([...p.ranges].map(([op, entries]) => [op, sortBy(entries)])),
            between: sortBy(p.between),
            equal: p.equal,
            notEqual: p.notEqual,
        },
    ]);

    function visit(properties: Record<string, unknown>, fn: (item: T) => void) {
        for (const [identifier, p] of byProperty) {
            const x = properties[identifier];
            if (x === undefined || x === null) continue;
            const v = numeric(x);
            if (!Number.isNaN(v)) {
                for (const [op, { keys, items }] of p.ranges) {
                    // The entries whose condition holds for v: t < v, t <= v, t > v, t >= v.
                    const [from, to] =
                        op === '>'
                            ? [0, bound(keys, v, false)]
                            : op === '>='
                              ? [0, bound(keys, v, true)]
                              : op === '<'
                                ? [bound(keys, v, true), keys.length]
                                : [bound(keys, v, false), keys.length];
                    for (let i = from; i < to; i++) fn(items[i]);
                }
                const b = p.between;
                for (let i = 0, to = bound(b.keys, v, true); i < to; i++) if (v <= b.highs[i]) fn(b.items[i]);
            }
            if (p.equal.size || p.notEqual.items.length) {
                // An object equals no text; it differs from every one.
                const key = typeof x === 'object' ? undefined : String(typeof x === 'boolean' ? Number(x) : x);
                const same = key === undefined ? undefined : p.equal.get(key);
                if (same) for (const item of same) fn(item);
                const ne = p.notEqual;
                for (let i = 0; i < ne.items.length; i++) if (ne.keys[i] !== key) fn(ne.items[i]);
            }
        }
    }
    return { plain, visit, indexed };
}
