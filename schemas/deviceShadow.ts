import * as yup from 'yup';

/**
 * The desired state of a device shadow as an operator types it (the 设备影子 tab) and as the API takes it
 * (POST /api/device/shadow/update): a JSON object of at most 128 attributes (Alibaba's limit), each with a name.
 * One rule for both, so the console refuses what the platform would.
 */

export const SHADOW_MAX_ATTRIBUTES = 128;
/** Alibaba's limit of a whole shadow document. */
export const SHADOW_MAX_BYTES = 16 * 1024;

export const SHADOW_MESSAGES = {
    required: '请输入期望值（JSON 对象）',
    notJson: '期望值不是有效的 JSON',
    notObject: '期望值应为 JSON 对象，例如 {"color":"red"}',
    tooMany: `期望值的属性不能超过 ${SHADOW_MAX_ATTRIBUTES} 个`,
    emptyKey: '期望值的属性名不能为空',
    tooLarge: '期望值不能超过 16KB',
} as const;

/** The desired state in `text`, or the message saying why it is not one. */
export function parseDesired(text: string): { value: Record<string, unknown> } | { error: string } {
    if (!text.trim()) return { error: SHADOW_MESSAGES.required };
    if (text.includes('\u0000')) return { error: SHADOW_MESSAGES.notJson };
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch {
        return { error: SHADOW_MESSAGES.notJson };
    }
    return checkDesired(value);
}

/** A parsed value as a desired state, or the message saying why it is not one. */
export function checkDesired(value: unknown): { value: Record<string, unknown> } | { error: string } {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { error: SHADOW_MESSAGES.notObject };
    const keys = Object.keys(value);
    if (keys.length > SHADOW_MAX_ATTRIBUTES) return { error: SHADOW_MESSAGES.tooMany };
    if (keys.some((k) => !k.trim())) return { error: SHADOW_MESSAGES.emptyKey };
    if (new TextEncoder().encode(JSON.stringify(value)).length > SHADOW_MAX_BYTES)
        return { error: SHADOW_MESSAGES.tooLarge };
    return { value: value as Record<string, unknown> };
}

/** The 编辑期望值 form: `desired`, JSON text. */
export const shadowDesiredSchema = yup.object({
    desired: yup
        .string()
        .default('')
        .test('desired', (text, ctx) => {
            const parsed = parseDesired(text ?? '');
            return 'error' in parsed ? ctx.createError({ message: parsed.error }) : true;
        }),
});
