import * as yup from 'yup';

/**
 * The configuration fields the message-queue kinds share: Chinese messages naming the field, text trimmed, NUL
 * refused (the configuration is stored in PostgreSQL, which refuses NUL in text).
 */
function noNul(schema: yup.StringSchema<string | undefined>, label: string): yup.StringSchema<string | undefined> {
    return schema
        .typeError(`${label}应为文本`)
        .test('nul', `${label}含有非法字符（空字符）`, (value) => value === undefined || !value.includes('\u0000'));
}

/** Optional text, trimmed; an empty text counts as absent. */
export function optionalText(label: string, max = 255) {
    return noNul(yup.string().trim(), label)
        .max(max, `${label}不得超过${max}个字符`)
        .transform((value: unknown) => (value === '' ? undefined : value));
}

/** Required text, trimmed. */
export function requiredText(label: string, max = 255) {
    return noNul(yup.string().trim(), label).max(max, `${label}不得超过${max}个字符`).required(`请填写${label}`);
}

/** Text with a default when absent, trimmed. */
export function textWithDefault(label: string, fallback: string, max = 255) {
    return noNul(yup.string().trim(), label).max(max, `${label}不得超过${max}个字符`).default(fallback);
}

/** A secret (password, token): not trimmed, a space may be part of it; optional. */
export function secret(label: string, max = 1024) {
    return noNul(yup.string(), label)
        .max(max, `${label}不得超过${max}个字符`)
        .transform((value: unknown) => (value === '' ? undefined : value));
}

/** A TCP port, 1..65535. */
export function port(label: string, fallback: number) {
    return yup
        .number()
        .typeError(`${label}应为数字`)
        .integer(`${label}应为整数`)
        .min(1, `${label}应在 1 到 65535 之间`)
        .max(65535, `${label}应在 1 到 65535 之间`)
        .default(fallback);
}

export function flag(label: string, fallback: boolean) {
    return yup.boolean().typeError(`${label}应为是或否`).default(fallback);
}

/**
 * The message for keys the kind does not know, for `.exact()`: yup 1.7's `.noUnknown()` strips unknown keys while
 * casting (so its own check never sees them) instead of refusing them.
 */
export const UNKNOWN_FIELDS = '配置含有未知字段：${properties}';
