import { HttpError } from 'ra-core';
import type { SuccessRule } from './types';
import type { RawAnswer } from './http';

export const SYSTEM_ERROR = '系统错误';
export const SESSION_EXPIRED = '登录已过期，请重新登录';

type Envelope = Record<string, unknown>;

/** Each family's success test (docs/platform-api.md "Envelopes and success rules"). */
export const successRules: Record<SuccessRule, (body: Envelope) => boolean> = {
    code200: (b) => b.code === 200 || b.code === '200' || b.code === '000000',
    code0: (b) => b.code === 0 || b.code === '0',
    returnCode1111: (b) => b.returnCode === '1111' || b.returnCode === 1111,
    returnCode0: (b) => b.returnCode === 0 || b.returnCode === '0',
};

const isObject = (v: unknown): v is Envelope => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isSuccess(rule: SuccessRule, body: unknown): boolean {
    return isObject(body) && successRules[rule](body);
}

/** The value at a dotted path ('data.records'); an empty path is the value itself. */
export function readPath(value: unknown, path: string): unknown {
    if (!path) return value;
    let current = value;
    for (const key of path.split('.')) {
        if (current === null || current === undefined || typeof current !== 'object') return undefined;
        current = (current as Envelope)[key];
    }
    return current;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** msg, then returnMessage, then data.msg, then the caller's fallback, then '系统错误'. */
export function errorMessage(body: unknown, fallback?: string): string {
    return (
        text(readPath(body, 'msg')) ??
        text(readPath(body, 'returnMessage')) ??
        text(readPath(body, 'data.msg')) ??
        fallback ??
        SYSTEM_ERROR
    );
}

/** Some gateways answer an expired session inside a 200 envelope; both shapes mean "sign in again". */
function isSessionExpired(status: number, body: unknown): boolean {
    return status === 401 || (isObject(body) && (body.code === 401 || body.code === '401'));
}

/**
 * Reads an answer in the family's envelope: the parsed body on success, else HttpError(message, status, body).
 * A 401 (HTTP or envelope code) becomes HttpError status 401 whose body carries data.loginUrl for the
 * authProvider. Success needs both a 2xx status and the rule's code.
 */
export function parseEnvelope(answer: RawAnswer, rule: SuccessRule, failure?: string): Envelope {
    let body: unknown;
    try {
        body = JSON.parse(answer.text);
    } catch {
        if (answer.status === 401) throw new HttpError(SESSION_EXPIRED, 401, answer.text);
        throw new HttpError(
            `服务器返回了无法识别的内容（HTTP ${answer.status}），请稍后重试`,
            answer.status,
            answer.text,
        );
    }
    if (isSessionExpired(answer.status, body)) throw new HttpError(errorMessage(body, SESSION_EXPIRED), 401, body);
    const ok = answer.status >= 200 && answer.status < 300;
    if (ok && isSuccess(rule, body)) return body as Envelope;
    throw new HttpError(errorMessage(body, failure), answer.status, body);
}
