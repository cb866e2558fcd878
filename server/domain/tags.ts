import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { ValidationError } from 'yup';
import {
    COORDINATE_KEY,
    DEVICE_TAG_TYPE,
    MAX_TAGS,
    parseCoordinate,
    TAG_MESSAGES,
    tagItemsSchema,
    type TagItem,
} from '../../schemas/tag';
import type { Db, Tx } from '../db/client';
import { devices, tags } from '../db/schema';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt } from '../http/input';

export const TAG_TYPE_UNSUPPORTED = '不支持的标签类型';
export const TAG_ITEMS_MALFORMED = '标签数据格式不正确';
export const TAG_NOT_FOUND = '标签不存在';
export const ADDR_MAX = 200;
export const ADDR_TOO_LONG = `地址不得超过${ADDR_MAX}个字符`;

export interface Tag {
    id: number;
    key: string;
    value: string;
}

/** The object a tag call names: only devices (type 2) carry tags so far. */
export interface TagObject {
    type: number;
    objectId: number;
}

/** type and objectId of a call; any type but 2 is refused, and the device must exist (404 设备不存在). */
export async function tagObject(db: Db | Tx, typeRaw: unknown, objectIdRaw: unknown): Promise<TagObject> {
    const type = typeof typeRaw === 'string' ? typeRaw.trim() : typeRaw;
    if (type !== String(DEVICE_TAG_TYPE) && type !== DEVICE_TAG_TYPE) throw badRequest(TAG_TYPE_UNSUPPORTED);
    const objectId = positiveInt(objectIdRaw, '缺少设备ID');
    const [device] = await db.select({ id: devices.id }).from(devices).where(eq(devices.id, objectId));
    if (!device) throw notFound('设备不存在');
    return { type: DEVICE_TAG_TYPE, objectId };
}

/** The object's tags, oldest first (the order they were added). */
export async function listTags(db: Db | Tx, object: TagObject): Promise<Tag[]> {
    return db
        .select({ id: tags.id, key: tags.key, value: tags.value })
        .from(tags)
        .where(and(eq(tags.type, object.type), eq(tags.objectId, object.objectId)))
        .orderBy(asc(tags.id));
}

/** A JSON item's field as text: strings as sent, numbers as their digits, absent as undefined; other shapes refused. */
function textField(value: unknown): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    throw badRequest(TAG_ITEMS_MALFORMED);
}

function idField(value: unknown): number | undefined {
    if (value === undefined || value === null || value === '') return undefined;
    return positiveInt(value, TAG_ITEMS_MALFORMED);
}

/** `items` as the console sends it (one JSON string), or already an array (JSON bodies); validated with schemas/tag.ts. */
export async function parseTagItems(raw: unknown): Promise<TagItem[]> {
    let value: unknown = raw;
    if (typeof raw === 'string') {
        try {
            value = JSON.parse(raw);
        } catch {
            throw badRequest(TAG_ITEMS_MALFORMED);
        }
    }
    if (!Array.isArray(value)) throw badRequest(TAG_ITEMS_MALFORMED);
    const shaped = value.map((item: unknown) => {
        if (!item || typeof item !== 'object' || Array.isArray(item)) throw badRequest(TAG_ITEMS_MALFORMED);
        const { id, key, value: text } = item as Record<string, unknown>;
        return { id: idField(id), key: textField(key), value: textField(text) };
    });
    try {
        const items = await tagItemsSchema.validate(shaped, { abortEarly: true, stripUnknown: true });
        return items.map((i) => ({ id: i.id, key: i.key, value: (i.value ?? '').trim() }));
    } catch (err) {
        if (err instanceof ValidationError) throw badRequest(err.errors[0] ?? err.message);
        throw err;
    }
}

export interface SaveTagsInput {
    object: TagObject;
    items: TagItem[];
    /** Sets the device's address when given (trimmed, at most ADDR_MAX). */
    addr?: string;
}

/**
 * Upserts the items in one transaction (an id updates that tag of the object, no id inserts) and answers the
 * object's tags. Keys must stay unique across the object's tags after the save (409). A `coordinate` item also
 * moves the device to that point; `addr` sets its address.
 */
export async function saveTags(db: Db, input: SaveTagsInput): Promise<Tag[]> {
    return saveTagsOf(db, input.object, () => input.items, input.addr);
}

/** saveTags with the items made from the object's tags as they are inside the transaction. */
async function saveTagsOf(
    db: Db,
    object: TagObject,
    itemsOf: (existing: Tag[]) => TagItem[],
    addr: string | undefined,
): Promise<Tag[]> {
    if (addr !== undefined && [...addr].length > ADDR_MAX) throw badRequest(ADDR_TOO_LONG);
    try {
        return await db.transaction(async (tx) => {
            // The device row is the object's lock: two saves of one device's tags take turns.
            const [device] = await tx
                .select({ id: devices.id })
                .from(devices)
                .where(eq(devices.id, object.objectId))
                .for('update');
            if (!device) throw notFound('设备不存在');
            const existing = await listTags(tx, object);
            const items = itemsOf(existing);
            const byId = new Map(existing.map((t) => [t.id, t]));
            const updates = items.filter((i) => i.id !== undefined);
            for (const u of updates) if (!byId.has(u.id!)) throw notFound(TAG_NOT_FOUND);
            if (new Set(updates.map((u) => u.id)).size !== updates.length) throw badRequest(TAG_MESSAGES.keyDuplicate);

            // The object's keys after the save: untouched tags keep theirs.
            const updatedIds = new Set(updates.map((u) => u.id!));
            const kept = existing.filter((t) => !updatedIds.has(t.id)).map((t) => t.key);
            const finalKeys = [...kept, ...items.map((i) => i.key)];
            if (new Set(finalKeys).size !== finalKeys.length) throw conflict(TAG_MESSAGES.keyDuplicate);
            if (finalKeys.length > MAX_TAGS) throw badRequest(TAG_MESSAGES.tooMany);

            if (updates.length) {
                // Keys may be swapped between tags in one save: park the updated rows on keys no real key can take
                // (keys are letters, digits and dots), then write the final ones, so the unique index never trips.
                await tx
                    .update(tags)
                    .set({ key: sql`'#' || ${tags.id}` })
                    .where(
                        inArray(
                            tags.id,
                            updates.map((u) => u.id!),
                        ),
                    );
                for (const u of updates) {
                    await tx.update(tags).set({ key: u.key, value: u.value }).where(eq(tags.id, u.id!));
                }
            }
            const inserts = items.filter((i) => i.id === undefined);
            if (inserts.length) {
                await tx.insert(tags).values(inserts.map((i) => ({ ...object, key: i.key, value: i.value ?? '' })));
            }

            const location: Partial<typeof devices.$inferInsert> = {};
            const coordinate = items.find((i) => i.key === COORDINATE_KEY);
            if (coordinate) {
                const point = parseCoordinate(coordinate.value ?? '');
                if (!point) throw badRequest(TAG_MESSAGES.coordinate);
                location.latitude = point.lat;
                location.longitude = point.lng;
            } else if (existing.some((t) => t.key === COORDINATE_KEY) && !finalKeys.includes(COORDINATE_KEY)) {
                // The coordinate tag was renamed away: the same as deleting it.
                Object.assign(location, { latitude: null, longitude: null, addr: null });
            }
            if (addr !== undefined) location.addr = addr === '' ? null : addr;
            if (Object.keys(location).length) {
                await tx.update(devices).set(location).where(eq(devices.id, object.objectId));
            }
            return listTags(tx, object);
        });
    } catch (err) {
        // Another save of the same object inserted the key between our check and our insert.
        if (isUniqueViolation(err, 'tags_object_key_uq')) throw conflict(TAG_MESSAGES.keyDuplicate);
        throw err;
    }
}

/**
 * Deletes one tag of the object (404 删除失败 when the object has no such tag). Deleting the `coordinate` tag takes
 * the device off the map: its latitude, longitude and address are cleared.
 */
export async function deleteTag(db: Db, object: TagObject, tagId: number): Promise<void> {
    await db.transaction(async (tx) => {
        const [deleted] = await tx
            .delete(tags)
            .where(and(eq(tags.id, tagId), eq(tags.type, object.type), eq(tags.objectId, object.objectId)))
            .returning({ key: tags.key });
        if (!deleted) throw notFound(TAG_MESSAGES.deleteFailed);
        if (deleted.key === COORDINATE_KEY) {
            await tx
                .update(devices)
                .set({ latitude: null, longitude: null, addr: null })
                .where(eq(devices.id, object.objectId));
        }
    });
}

/**
 * The tags a device reports (Alink thing/deviceinfo/update): each key set to its value, the keys the device lacks
 * added, under the console's rules (schemas/tag.ts: key characters and length, value length, at most MAX_TAGS in all;
 * a `coordinate` tag places the device). Refused whole (ApiError) with the rule's message.
 */
export async function updateDeviceTags(
    db: Db,
    deviceId: number,
    pairs: Array<{ key: string; value: string }>,
): Promise<Tag[]> {
    const items = await parseTagItems(pairs.map((p) => ({ key: p.key, value: p.value })));
    const object = { type: DEVICE_TAG_TYPE, objectId: deviceId };
    return saveTagsOf(
        db,
        object,
        (existing) => {
            const idOf = new Map(existing.map((t) => [t.key, t.id]));
            return items.map((i) => ({ ...i, id: idOf.get(i.key) }));
        },
        undefined,
    );
}

/**
 * Deletes the device's tags of these keys (Alink thing/deviceinfo/delete); keys it lacks are no error. Deleting
 * `coordinate` takes the device off the map, as on the console.
 */
export async function deleteDeviceTags(db: Db, deviceId: number, keys: string[]): Promise<void> {
    if (!keys.length) return;
    await db.transaction(async (tx) => {
        const deleted = await tx
            .delete(tags)
            .where(and(eq(tags.type, DEVICE_TAG_TYPE), eq(tags.objectId, deviceId), inArray(tags.key, keys)))
            .returning({ key: tags.key });
        if (deleted.some((d) => d.key === COORDINATE_KEY)) {
            await tx
                .update(devices)
                .set({ latitude: null, longitude: null, addr: null })
                .where(eq(devices.id, deviceId));
        }
    });
}
