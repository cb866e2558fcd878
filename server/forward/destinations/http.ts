import { createHmac } from 'node:crypto';
import * as yup from 'yup';
import { flag, integer, requiredText, text, UNKNOWN_FIELDS } from './fields';
import { reachable } from './httpReach';
import { messageOf, networkReason } from './network';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type ForwardRecord, type Sender } from './types';

/**
 * HTTP(S) 推送: each record is one request, in order (or, with `batch`, the whole batch is one request whose body is a
 * JSON array), by Node's fetch with a timeout and no redirects followed (a POST redirected would arrive as a GET).
 * Every request carries `X-Forward-Id` (the record's id, the batch's first in batch mode, with `X-Forward-Count`) so
 * the receiver can de-duplicate, and with an HMAC key `<signatureHeader>: sha256=<hex HMAC-SHA256 of the body>`.
 * 2xx is acknowledged; 408, 429, 5xx, a timeout, a connection failure are transient; other answers are permanent.
 */

/** RFC 9110's token: a header's name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the destination or fetch sets itself. */
const RESERVED = new Set([
    'host',
    'content-length',
    'connection',
    'transfer-encoding',
    'x-forward-id',
    'x-forward-count',
]);

const header = yup
    .object({
        name: requiredText('请求头名称', 200)
            .matches(TOKEN, "请求头名称只能包含字母、数字和 !#$%&'*+.^_`|~- 等字符")
            .test('reserved', '请求头 ${value} 由平台设置，不能自定义', (v) => !RESERVED.has(String(v).toLowerCase())),
        value: text('请求头的值', 4000).test('line', '请求头的值不能包含换行', (v) => !/[\r\n]/.test(v ?? '')),
    })
    .exact('请求头含有未知字段：${properties}');

const schema = yup
    .object({
        url: requiredText('推送地址', 2000)
            .test('url', '推送地址必须是以 http:// 或 https:// 开头的有效 URL', isHttpUrl)
            .test('credentials', '推送地址不能包含用户名和密码，请改用 Authorization 请求头', hasNoCredentials),
        method: yup
            .string()
            .trim()
            .transform((v: string) => v.toUpperCase() || undefined)
            .oneOf(['POST', 'PUT'], '请求方法必须是 POST 或 PUT')
            .default('POST'),
        headers: yup.array().of(header).max(50, '请求头最多 50 个').optional(),
        bodyTemplate: text('请求体模板', 20_000),
        batch: flag('批量推送'),
        hmacSecret: text('签名密钥', 1000),
        signatureHeader: text('签名请求头', 200)
            .transform((v: string) => v || undefined)
            .default('X-Signature')
            .matches(TOKEN, "签名请求头名称只能包含字母、数字和 !#$%&'*+.^_`|~- 等字符"),
        timeoutMs: integer('超时时间（毫秒）', 100, 60_000).default(5000),
    })
    .exact(UNKNOWN_FIELDS)
    .test('signature-header', '请求头不能与签名请求头同名：签名由平台计算', (config) => {
        const signature = config.signatureHeader.toLowerCase();
        return !config.headers?.some((h) => h.name.toLowerCase() === signature);
    });

export type HttpConfig = yup.InferType<typeof schema>;

function isHttpUrl(value: string | undefined): boolean {
    if (!value) return true;
    try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !!url.hostname;
    } catch {
        return false;
    }
}

/** fetch refuses a URL with user:password@; a header says it instead. */
function hasNoCredentials(value: string | undefined): boolean {
    if (!value || !isHttpUrl(value)) return true;
    const url = new URL(value);
    return !url.username && !url.password;
}

/** The body of one record: the template, else the record as JSON. */
function bodyOf(config: HttpConfig, record: ForwardRecord): string {
    if (config.bodyTemplate) return renderTemplate(config.bodyTemplate, record);
    const { id, flowId, flowName, productKey, deviceName, topic, ts, row } = record;
    return JSON.stringify({ id, flowId, flowName, productKey, deviceName, topic, ts, row });
}

/** The configured headers, with JSON as the content type unless one is configured. */
function baseHeaders(config: HttpConfig): Record<string, string> {
    const headers: Record<string, string> = {};
    if (!config.headers?.some((h) => h.name.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json; charset=utf-8';
    for (const { name, value } of config.headers ?? []) headers[name] = value;
    return headers;
}

/** What an answer other than 2xx means. */
function statusError(status: number, text: string, config: HttpConfig, location: string | null): DestinationError {
    const answer = `接收方 ${config.url} 应答 HTTP ${status}${text ? `：${text.slice(0, 200)}` : ''}`;
    if (status === 408 || status === 429 || status >= 500)
        return new DestinationError(`${answer}。接收方暂时无法处理，稍后重试`);
    if (status >= 300 && status < 400)
        return new DestinationError(`${answer}，重定向到 ${location ?? '?'}：请把推送地址改为最终地址`, true);
    if (status === 401 || status === 403)
        return new DestinationError(`${answer}。接收方拒绝访问，请检查鉴权请求头或签名密钥`, true);
    if (status >= 400) return new DestinationError(`${answer}。接收方拒绝了数据，请检查请求体模板和请求头`, true);
    return new DestinationError(answer);
}

/** A failure of fetch itself: a timeout or a connection that could not be made, transient. */
function fetchError(error: unknown, config: HttpConfig): DestinationError {
    if (error instanceof DestinationError) return error;
    const name = (error as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
        return new DestinationError(
            `推送到 ${config.url} 超时（${config.timeoutMs} 毫秒内没有应答），请检查接收方或加大超时时间`,
            false,
            { cause: error },
        );
    const reason = networkReason(error) ?? messageOf(error);
    return new DestinationError(`无法连接推送地址 ${config.url}：${reason}`, false, { cause: error });
}

/** One request; resolves on 2xx. The answer's body is read (the connection is then reused) for the message. */
async function post(config: HttpConfig, headers: Record<string, string>, body: string): Promise<void> {
    if (config.hmacSecret)
        headers[config.signatureHeader] =
            `sha256=${createHmac('sha256', config.hmacSecret).update(body).digest('hex')}`;
    let response: Response;
    let text: string;
    try {
        response = await fetch(config.url, {
            method: config.method,
            headers,
            body,
            redirect: 'manual',
            signal: AbortSignal.timeout(config.timeoutMs),
        });
        text = await response.text();
    } catch (error) {
        throw fetchError(error, config);
    }
    if (response.status < 200 || response.status >= 300)
        throw statusError(response.status, text, config, response.headers.get('location'));
}

async function sendAll(config: HttpConfig, base: Record<string, string>, records: ForwardRecord[]) {
    if (!records.length) return;
    if (config.batch) {
        const headers = { ...base, 'x-forward-id': records[0].id, 'x-forward-count': String(records.length) };
        return post(config, headers, `[${records.map((r) => bodyOf(config, r)).join(',')}]`);
    }
    for (const record of records) await post(config, { ...base, 'x-forward-id': record.id }, bodyOf(config, record));
}

function open(config: HttpConfig): Sender {
    const base = baseHeaders(config);
    return {
        send: (records) => sendAll(config, base, records),
        test: () => reachable(new URL(config.url), config.timeoutMs),
        close: async () => undefined,
    };
}

export const httpDestination: DestinationKind<HttpConfig> = {
    kind: 'http',
    label: 'HTTP(S) 推送',
    schema,
    secretFields: ['hmacSecret'],
    open,
};
