import * as yup from 'yup';

/**
 * Remote configuration (远程配置, docs/device-access.md): a product's configuration file, text or JSON, at most 64 KB
 * of UTF-8. Shared by the console's 编辑 dialog and the server, so both refuse the same input with the same words.
 */

/** Alibaba's limit: a configuration file of at most 64 KB. */
export const CONFIG_MAX_BYTES = 64 * 1024;

export const CONFIG_FORMATS = [
    { id: 'json', name: 'JSON' },
    { id: 'text', name: '文本' },
] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number]['id'];

/**
 * Per-device states of a push, with their Chinese names and colours. 未应答 (timeout) is 推送中 for longer than
 * CONFIG_REPLY_WAIT_MS: a device that does not take pushes; a late answer still makes it 成功 or 失败.
 */
export const CONFIG_PUSH_STATES = [
    { id: 'pushing', name: '推送中', color: 'info' },
    { id: 'succeeded', name: '成功', color: 'success' },
    { id: 'failed', name: '失败', color: 'error' },
    { id: 'offline', name: '离线未推送', color: 'default' },
    { id: 'timeout', name: '未应答', color: 'warning' },
] as const;
export type ConfigPushState = (typeof CONFIG_PUSH_STATES)[number]['id'];

/** How long a pushed device is 推送中 before it is shown as 未应答. */
export const CONFIG_REPLY_WAIT_MS = 60_000;

export const CONFIG_PUSH_SCOPES = [
    { id: 'all', name: '全部设备' },
    { id: 'group', name: '指定分组' },
] as const;

export const CONFIG_MESSAGES = {
    contentRequired: '请输入配置内容',
    nul: '配置内容不能包含空字符（\\u0000）',
    formatRequired: '请选择配置格式',
    formatInvalid: '配置格式只能是 json 或 text',
    remarkTooLong: '备注不能超过100个字符',
    noConfig: '该产品还没有配置文件，请先编辑配置',
    versionNotFound: '配置版本不存在',
    pushNotFound: '推送记录不存在',
    groupRequired: '请选择分组',
    noDevices: '该产品下没有设备，无需推送',
    noGroupDevices: '该分组中没有该产品的设备，无需推送',
} as const;

/** The size of `text` in UTF-8 bytes: what a device downloads. */
export const utf8Size = (text: string) => new TextEncoder().encode(text).length;

/** `bytes` as people read it: 512 B, 1.5 KB. */
export const formatBytes = (bytes: number) =>
    bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 2 : 1).replace(/\.?0+$/, '')} KB`;

export const tooLargeMessage = (bytes: number) => `配置文件不能超过 64KB（当前 ${formatBytes(bytes)}）`;

/** Why `content` is not valid JSON, or undefined when it is. */
export function jsonProblem(content: string): string | undefined {
    try {
        JSON.parse(content);
        return undefined;
    } catch (err) {
        return `配置内容不是有效的 JSON：${(err as Error).message}`;
    }
}

/** Why `content` of `format` cannot be saved, or undefined: empty, NUL, over 64 KB, invalid JSON. */
export function contentProblem(format: unknown, content: unknown): string | undefined {
    if (typeof content !== 'string' || content.trim() === '') return CONFIG_MESSAGES.contentRequired;
    if (content.includes('\u0000')) return CONFIG_MESSAGES.nul;
    const size = utf8Size(content);
    if (size > CONFIG_MAX_BYTES) return tooLargeMessage(size);
    return format === 'json' ? jsonProblem(content) : undefined;
}

/** 编辑 (save a new version): format, content, an optional remark. */
export const configSaveSchema = yup.object({
    format: yup
        .string()
        .required(CONFIG_MESSAGES.formatRequired)
        .oneOf(
            CONFIG_FORMATS.map((f) => f.id),
            CONFIG_MESSAGES.formatInvalid,
        ),
    content: yup
        .string()
        .default('')
        .test('content', CONFIG_MESSAGES.contentRequired, function check(value) {
            const why = contentProblem(this.parent.format, value);
            return why ? this.createError({ message: why }) : true;
        }),
    remark: yup.string().trim().max(100, CONFIG_MESSAGES.remarkTooLong).default(''),
});

/** 批量推送: every device of the product, or one group's. */
export const configPushSchema = yup.object({
    scope: yup
        .string()
        .required('请选择推送范围')
        .oneOf(
            CONFIG_PUSH_SCOPES.map((s) => s.id),
            '推送范围只能是 all 或 group',
        ),
    groupId: yup
        .number()
        .transform((v: number, raw: unknown) => (raw === '' || raw === null ? undefined : v))
        .typeError(CONFIG_MESSAGES.groupRequired)
        .integer(CONFIG_MESSAGES.groupRequired)
        .positive(CONFIG_MESSAGES.groupRequired)
        .when('scope', {
            is: 'group',
            then: (s) => s.required(CONFIG_MESSAGES.groupRequired),
            otherwise: (s) => s.optional(),
        }),
});
