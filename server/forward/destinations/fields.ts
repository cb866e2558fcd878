import * as yup from 'yup';

/**
 * The fields the destination kinds' configurations share, each with a Chinese message naming the field: texts are
 * trimmed and may not hold NUL (PostgreSQL refuses it and a driver would cut at it), ports are 1-65535 integers.
 */

const hasNoNul = (v: string | undefined | null) => !v || !v.includes('\u0000');

/** An optional text (empty when not given). */
export function text(label: string, max = 1000) {
    return yup
        .string()
        .trim()
        .default('')
        .max(max, `${label}不得超过${max}个字符`)
        .test('nul', `${label}含有非法字符（空字符），请删除后重试`, hasNoNul);
}

/** A required text. */
export function requiredText(label: string, max = 1000) {
    return text(label, max).required(`请填写${label}`);
}

/** A host name or address. */
export function host(label = '主机地址') {
    return requiredText(label, 255).matches(/^[^\s/?#@]+$/, `${label}格式不正确：只填主机名或 IP，不带协议和路径`);
}

/** A TCP port, `fallback` when not given. */
export function port(fallback: number, label = '端口') {
    const message = `${label}必须是 1-65535 的整数`;
    return yup
        .number()
        .transform((v: number, raw: unknown) => (raw === '' || raw === null ? undefined : v))
        .typeError(message)
        .integer(message)
        .min(1, message)
        .max(65535, message)
        .default(fallback);
}

/** An integer in [min, max] (a timeout, a database number, a length); the caller sets its default. */
export function integer(label: string, min: number, max: number) {
    const message = `${label}必须是 ${min}-${max} 的整数`;
    return yup
        .number()
        .transform((v: number, raw: unknown) => (raw === '' || raw === null ? undefined : v))
        .typeError(message)
        .integer(message)
        .min(min, message)
        .max(max, message);
}

/** A database identifier (schema, table, column): any characters but NUL, quoted when used. */
export function identifier(label: string, max: number) {
    return requiredText(label, max);
}

/** The table columns and the selected names they take: [{ column, from }]; unique columns. */
export function columnMappings(max: number) {
    return yup
        .array()
        .of(
            yup
                .object({ column: identifier('列名', max), from: requiredText('选出的字段名', 200) })
                .exact('列映射含有未知字段：${properties}'),
        )
        .max(500, '列映射最多 500 项')
        .test('unique', '列映射中的列名重复：每个列只能映射一次', (list) => {
            const names = (list ?? []).map((m) => m.column);
            return new Set(names).size === names.length;
        })
        .optional();
}

/** A boolean, `fallback` (false) when not given. */
export function flag(label: string, fallback = false) {
    return yup.boolean().typeError(`${label}必须是布尔值`).default(fallback);
}

/** Optional text, trimmed; an empty text counts as absent. */
export function optionalText(label: string, max = 255) {
    return yup
        .string()
        .trim()
        .max(max, `${label}不得超过${max}个字符`)
        .test('nul', `${label}含有非法字符（空字符），请删除后重试`, hasNoNul)
        .transform((value: unknown) => (value === '' ? undefined : value));
}

/** Text with a default when absent, trimmed. */
export function textWithDefault(label: string, fallback: string, max = 255) {
    return text(label, max).default(fallback);
}

/** A secret (password, token): not trimmed, a space may be part of it; optional (empty counts as absent). */
export function secret(label: string, max = 1024) {
    return yup
        .string()
        .max(max, `${label}不得超过${max}个字符`)
        .test('nul', `${label}含有非法字符（空字符），请删除后重试`, hasNoNul)
        .transform((value: unknown) => (value === '' ? undefined : value));
}

/**
 * The message refusing configuration keys a kind does not know, for `.exact()`: yup's `noUnknown()` refuses them only
 * when validating with `stripUnknown: false` and otherwise drops them silently; `exact()` refuses them always.
 */
export const UNKNOWN_FIELDS = '配置含有未知字段：${properties}';
