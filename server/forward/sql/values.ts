/**
 * SQL's values as a flow evaluates them: NULL is `null` (a missing path is NULL too); comparisons take numbers with
 * numbers, strings with strings, booleans with booleans, and are NULL for anything else or with a NULL; logic is
 * three-valued (NULL AND FALSE is FALSE, NULL OR TRUE is TRUE, NOT NULL is NULL); WHERE selects only TRUE.
 */

/** SQL truth of a value: booleans as they are, numbers TRUE when not zero, anything else (NULL, strings) NULL. */
export function truth(value: unknown): boolean | null {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isNaN(value) ? null : value !== 0;
    return null;
}

/** -1, 0 or 1; NULL when either side is NULL or the types differ (objects and arrays compare to nothing). */
export function compare(a: unknown, b: unknown): number | null {
    const type = typeof a;
    if (type !== typeof b || a === null || b === null) return null;
    if (type === 'number' || type === 'string')
        return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    if (type === 'boolean') return Number(a) - Number(b);
    return null;
}

export function and(a: boolean | null, b: boolean | null): boolean | null {
    if (a === false || b === false) return false;
    return a === null || b === null ? null : true;
}

export function or(a: boolean | null, b: boolean | null): boolean | null {
    if (a === true || b === true) return true;
    return a === null || b === null ? null : false;
}

export function not(a: boolean | null): boolean | null {
    return a === null ? null : !a;
}

/** A finite number, or NULL. */
export function finite(n: number): number | null {
    return Number.isFinite(n) ? n : null;
}

export function isNumber(value: unknown): value is number {
    return typeof value === 'number' && Number.isFinite(value);
}

/** A value as a number for CAST: numbers, booleans (1, 0) and numeric strings; anything else NULL. */
export function toNumber(value: unknown): number | null {
    if (typeof value === 'number') return finite(value);
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string' && value.trim() !== '') return finite(Number(value));
    return null;
}

/** A value as text for concat and CAST: strings, numbers, booleans as written, objects and arrays as JSON. */
export function toText(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    if (typeof value === 'object') return jsonText(value);
    return String(value);
}

/** A value as JSON text; NULL for what JSON cannot write (undefined, a cycle, a bigint), so that `run` never throws. */
export function jsonText(value: unknown): string | null {
    try {
        return JSON.stringify(value) ?? null;
    } catch {
        return null;
    }
}

/** A value as a boolean for CAST: booleans, numbers (not zero), 'true'/'false'/'1'/'0'; anything else NULL. */
export function toBoolean(value: unknown): boolean | null {
    if (typeof value === 'string') {
        const text = value.trim().toLowerCase();
        return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : null;
    }
    return truth(value);
}

/** A child of an object (own keys only) or an array (an index); NULL when there is none. */
export function child(value: unknown, key: string | number): unknown {
    if (value === null || typeof value !== 'object') return null;
    if (Array.isArray(value)) {
        const index = typeof key === 'number' ? key : /^\d+$/.test(key) ? Number(key) : -1;
        return index >= 0 && index < value.length ? (value[index] ?? null) : null;
    }
    return Object.hasOwn(value, key) ? ((value as Record<string | number, unknown>)[key] ?? null) : null;
}

/** The value at a path of keys and indexes, NULL when any step is missing. */
export function atPath(value: unknown, path: readonly (string | number)[]): unknown {
    let current = value;
    for (const key of path) {
        current = child(current, key);
        if (current === null) return null;
    }
    return current;
}
