import type { Sandbox } from './sandbox';

/**
 * The three functions of Alibaba's data-parsing contract, called in the sandbox with their answers checked:
 * rawDataToProtocol(bytes) and transformPayload(topic, bytes) answer a JSON object, protocolToRawData(json) an array
 * of bytes (integers 0-255). Bytes go in as a plain array of numbers 0-255, as Alibaba passes them.
 */

/** What the broker asks of scripts: a product's published script, and the sandbox that runs it. */
export interface ScriptAccess {
    published(productId: number): Promise<string | undefined>;
    sandbox: Sandbox;
}

export type Converted<T> = { ok: true; value: T } | { ok: false; error: string };

export const RAW_TO_PROTOCOL = 'rawDataToProtocol';
export const PROTOCOL_TO_RAW = 'protocolToRawData';
export const TRANSFORM_PAYLOAD = 'transformPayload';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const missing = (fn: string) => `脚本中未定义 ${fn} 函数`;

/** The answer as a JSON object, or why it is not one. */
function asObject(fn: string, v: unknown): Converted<Record<string, unknown>> {
    if (v === undefined || v === null) return { ok: false, error: `${fn} 未返回数据` };
    if (!isObject(v)) return { ok: false, error: `${fn} 应返回 JSON 对象` };
    return { ok: true, value: v };
}

/** The answer as bytes, or why it is not an array of integers 0-255. */
export function asBytes(fn: string, v: unknown): Converted<Buffer> {
    if (!Array.isArray(v)) return { ok: false, error: `${fn} 应返回字节数组` };
    for (let i = 0; i < v.length; i++) {
        const b = v[i] as unknown;
        if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255)
            return { ok: false, error: `${fn} 返回的第 ${i + 1} 个元素 ${JSON.stringify(b)} 不是 0~255 的整数` };
    }
    return { ok: true, value: Buffer.from(v as number[]) };
}

async function call(sandbox: Sandbox, source: string, fn: string, args: unknown[]): Promise<Converted<unknown>> {
    const outcome = await sandbox.run(source, fn, args);
    if (!outcome.ok) return { ok: false, error: outcome.error === '脚本中未定义该函数' ? missing(fn) : outcome.error };
    return { ok: true, value: outcome.value };
}

/** rawDataToProtocol(bytes): the device's raw bytes as Alink JSON. */
export async function rawDataToProtocol(
    sandbox: Sandbox,
    source: string,
    bytes: Buffer,
): Promise<Converted<Record<string, unknown>>> {
    const answer = await call(sandbox, source, RAW_TO_PROTOCOL, [[...bytes]]);
    return answer.ok ? asObject(RAW_TO_PROTOCOL, answer.value) : answer;
}

/** protocolToRawData(json): Alink JSON as the device's raw bytes. */
export async function protocolToRawData(
    sandbox: Sandbox,
    source: string,
    json: Record<string, unknown>,
): Promise<Converted<Buffer>> {
    const answer = await call(sandbox, source, PROTOCOL_TO_RAW, [json]);
    return answer.ok ? asBytes(PROTOCOL_TO_RAW, answer.value) : answer;
}

/** transformPayload(topic, bytes): a custom topic's bytes as JSON. */
export async function transformPayload(
    sandbox: Sandbox,
    source: string,
    topic: string,
    bytes: Buffer,
): Promise<Converted<Record<string, unknown>>> {
    const answer = await call(sandbox, source, TRANSFORM_PAYLOAD, [topic, [...bytes]]);
    return answer.ok ? asObject(TRANSFORM_PAYLOAD, answer.value) : answer;
}
