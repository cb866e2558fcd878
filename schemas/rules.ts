import * as yup from 'yup';

/** Length where every Chinese (CJK) character counts as 2, as the platform measures names. */
export function chineseLength(value: string): number {
    let n = 0;
    for (const ch of value) n += /[\u4e00-\u9fa5]/.test(ch) ? 2 : 1;
    return n;
}

/** Chinese characters, letters, digits and underscore. */
export const NAME_CHARSET = /^[\u4e00-\u9fa5A-Za-z0-9_]+$/;

/** Chinese, letters, digits, underscore, hyphen, dot and half-width colon (consumer groups, tag values). */
export const VALUE_CHARSET = /^[\u4e00-\u9fa5A-Za-z0-9_\-.:]+$/;

/** Mainland China mobile number. */
export const MOBILE = /^1[3-9]\d{9}$/;

export const MIN_PASSWORD_LENGTH = 6;

/**
 * The platform's name rule: required, 4 to 30 with Chinese counted as 2, and the name charset.
 * Products and groups share it with their own messages.
 */
export function platformName(messages: { required: string; length: string; charset: string }) {
    return yup
        .string()
        .trim()
        .required(messages.required)
        .test('chinese-length', messages.length, (v) => !v || (chineseLength(v) >= 4 && chineseLength(v) <= 30))
        .matches(NAME_CHARSET, { message: messages.charset, excludeEmptyString: true });
}

/** A select whose value arrives from a form as a string: coerce, and say the select's own message when empty. */
export function requiredInt(message: string) {
    return yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError(message)
        .integer(message)
        .required(message);
}
