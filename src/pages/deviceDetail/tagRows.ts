import { ValidationError } from 'yup';
import { COORDINATE_KEY, MAX_TAGS, TAG_MESSAGES, tagItemSchema, tagKeyRule } from '../../../schemas/tag';
import { CONFIRM_POSITION_FIRST, toCoordinateTag } from '../../components/map/pickerState';
import type { DeviceTag } from './types';

/** One key/value row of the tag modal; `uid` tells rows apart while they have no id. */
export interface TagRow {
    uid: string;
    id?: number;
    key: string;
    value: string;
}

/** The location row: a point picked on the map (its tag is `coordinate`, 'lat,lng') and the address found there. */
export interface LocationRow {
    id?: number;
    point: { lng: number; lat: number } | null;
    addr: string | null;
}

export interface RowErrors {
    key?: string;
    value?: string;
}

export interface TagCheck {
    rows: Record<string, RowErrors>;
    location?: string;
    /** Errors about the whole set (too many tags). */
    form?: string;
}

let serial = 0;
export const newRow = (tag?: DeviceTag): TagRow => ({
    uid: `r${++serial}`,
    id: tag?.id,
    key: tag?.key ?? '',
    value: tag?.value ?? '',
});

function firstError(check: () => void): string | undefined {
    try {
        check();
        return undefined;
    } catch (error) {
        if (error instanceof ValidationError) return error.errors[0];
        throw error;
    }
}

/** Each row's own rules (schemas/tag.ts), then keys unique: a later row reusing a key is the one marked. */
export function checkRow(row: TagRow): RowErrors {
    const key = firstError(() => tagKeyRule.validateSync(row.key));
    const value = firstError(() => tagItemSchema.validateSyncAt('value', { key: row.key.trim(), value: row.value }));
    return { ...(key ? { key } : {}), ...(value ? { value } : {}) };
}

export function checkTags(rows: TagRow[], location: LocationRow | null): TagCheck {
    const out: TagCheck = { rows: {} };
    const seen = new Set<string>(location ? [COORDINATE_KEY] : []);
    for (const row of rows) {
        const errors = checkRow(row);
        const key = row.key.trim();
        if (!errors.key && seen.has(key)) errors.key = TAG_MESSAGES.keyDuplicate;
        seen.add(key);
        if (errors.key || errors.value) out.rows[row.uid] = errors;
    }
    if (location && !location.point) out.location = CONFIRM_POSITION_FIRST;
    if (rows.length + (location ? 1 : 0) > MAX_TAGS) out.form = TAG_MESSAGES.tooMany;
    return out;
}

export const hasErrors = (check: TagCheck) => !!check.location || !!check.form || Object.keys(check.rows).length > 0;

/** What POST /api/tag/save takes as items: every row, the location as the `coordinate` tag. */
export function toItems(
    rows: TagRow[],
    location: LocationRow | null,
): Array<{ id?: number; key: string; value: string }> {
    const items = rows.map((r) => ({ ...(r.id ? { id: r.id } : {}), key: r.key.trim(), value: r.value }));
    if (location?.point) {
        items.unshift({
            ...(location.id ? { id: location.id } : {}),
            key: COORDINATE_KEY,
            value: toCoordinateTag(location.point),
        });
    }
    return items;
}
