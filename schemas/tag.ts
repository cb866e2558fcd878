import * as yup from 'yup';
import { VALUE_CHARSET } from './rules';

/** Tag type of a device (SPEC.md "Business constants"). */
export const DEVICE_TAG_TYPE = 2;

/** The key of the location tag; its value is 'lat,lng'. */
export const COORDINATE_KEY = 'coordinate';

export const TAG_KEY_MAX = 30;
export const TAG_VALUE_MAX = 128;
/** Tags one object may carry. */
export const MAX_TAGS = 50;

export const TAG_KEY_CHARSET = /^[A-Za-z0-9.]+$/;

export const TAG_MESSAGES = {
    keyRequired: '不能为空,请定义Key名',
    keyMax: '名称不得超过30个字符',
    keyCharset: '只允许包含数字、字母、.',
    keyDuplicate: 'Key值不能重复,请重新定义Key值',
    valueRequired: '不能为空,请输入Value值名',
    valueMax: '不得超过128个字符',
    valueCharset: 'Value支持中文、英文字母、数字、下划线（_）、中划线（-）、点号（.）以及半角冒号（:）',
    coordinate: '位置格式应为「纬度,经度」',
    tooMany: `标签不能超过${MAX_TAGS}个`,
    deleted: '删除成功',
    deleteFailed: '删除失败',
} as const;

export const tagKeyRule = yup
    .string()
    .trim()
    .required(TAG_MESSAGES.keyRequired)
    .max(TAG_KEY_MAX, TAG_MESSAGES.keyMax)
    .matches(TAG_KEY_CHARSET, { message: TAG_MESSAGES.keyCharset, excludeEmptyString: true });

export const tagValueRule = yup
    .string()
    .required(TAG_MESSAGES.valueRequired)
    .test('not-blank', TAG_MESSAGES.valueRequired, (v) => !v || v.trim().length > 0)
    .max(TAG_VALUE_MAX, TAG_MESSAGES.valueMax)
    .matches(VALUE_CHARSET, { message: TAG_MESSAGES.valueCharset, excludeEmptyString: true });

/** 'lat,lng' with latitude in [-90, 90] and longitude in [-180, 180]. */
export function parseCoordinate(value: string): { lat: number; lng: number } | undefined {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
    if (!m) return undefined;
    const lat = Number(m[1]);
    const lng = Number(m[2]);
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return undefined;
    return { lat, lng };
}

export const tagItemSchema = yup.object({
    id: yup.number().integer().positive().optional(),
    key: tagKeyRule,
    value: yup.string().when('key', {
        is: COORDINATE_KEY,
        then: () =>
            yup
                .string()
                .required(TAG_MESSAGES.valueRequired)
                .test('coordinate', TAG_MESSAGES.coordinate, (v) => !v || parseCoordinate(v) !== undefined),
        otherwise: () => tagValueRule,
    }),
});

/** The key/value rows of the tag modal: each row's rules, then keys unique (case-sensitive), at most MAX_TAGS. */
export const tagItemsSchema = yup
    .array()
    .of(tagItemSchema)
    .max(MAX_TAGS, TAG_MESSAGES.tooMany)
    .test('unique-keys', TAG_MESSAGES.keyDuplicate, (items) => {
        const keys = (items ?? []).map((i) => i?.key?.trim());
        return new Set(keys).size === keys.length;
    })
    .required();

export type TagItem = yup.InferType<typeof tagItemSchema>;

/** The tag dialog's location row before a point was confirmed on the map (SPEC "Tags and map"). */
export const LOCATION_REQUIRED = '请先位置确定';

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * The device tag dialog (resources/deviceDetail.tsx): an optional location (lng / lat from the map picker, kept as
 * the `coordinate` tag) and key/value rows, each with its own rules; a later row reusing a key (or `coordinate`
 * while a location is set) is the one marked; at most MAX_TAGS in all.
 */
export const deviceTagsFormSchema = yup.object({
    hasLocation: yup.boolean(),
    locationId: yup.number().optional(),
    lng: yup.mixed().test('located', LOCATION_REQUIRED, function (value) {
        const wanted = !!this.parent.hasLocation || present(this.parent.locationId);
        return !wanted || present(value);
    }),
    items: yup
        .array()
        .of(yup.object({ key: tagKeyRule, value: tagValueRule }))
        .test('unique-keys', TAG_MESSAGES.keyDuplicate, function (rows) {
            const located = !!this.parent.hasLocation || present(this.parent.locationId);
            const seen = new Set<string>(located ? [COORDINATE_KEY] : []);
            for (const [i, row] of (rows ?? []).entries()) {
                const key = String(row?.key ?? '').trim();
                if (key && seen.has(key)) {
                    return this.createError({ path: `${this.path}[${i}].key`, message: TAG_MESSAGES.keyDuplicate });
                }
                seen.add(key);
            }
            return true;
        })
        .test('count', TAG_MESSAGES.tooMany, function (rows) {
            const located = !!this.parent.hasLocation || present(this.parent.locationId);
            return (rows ?? []).length + (located ? 1 : 0) <= MAX_TAGS;
        }),
});
