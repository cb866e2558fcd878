import { and, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { dataScriptDebugSchema, dataScriptSchema, type DataScriptDebugInput } from '../../schemas/dataScript';
import type { Db } from '../db/client';
import { products } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { productScopeSql } from '../domain/products';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { positiveInt, readBody, refuseNul, validate } from '../http/input';
import { formatTime } from '../http/time';
import { protocolToRawData, rawDataToProtocol, transformPayload, type Converted } from '../scripts/calls';
import { sandboxFor, type Sandbox } from '../scripts/sandbox';
import { publishScript, saveDraft, scriptRow } from '../scripts/store';
import { DEFAULT_SCRIPT } from '../scripts/template';

const NOT_PASSTHROUGH =
    '该产品的数据格式为 ICA 标准数据格式（Alink JSON），无需数据解析；仅透传/自定义格式的产品可使用数据解析脚本';

/** The product (inside the caller's projects) whose script is asked for; 404 when none, 400 when not 透传/自定义. */
async function passthroughProduct(db: Db, raw: unknown) {
    const productId = positiveInt(raw, '缺少产品ID');
    const [row] = await db
        .select({ productId: products.id, productKey: products.productKey, dataType: products.dataType })
        .from(products)
        .where(and(eq(products.id, productId), productScopeSql()));
    if (!row) throw notFound('产品不存在');
    return row;
}

/** Bytes of a 上行 or 自定义 Topic sample: hex (spaces and a 0x prefix allowed) or base64. */
export function sampleBytes(payload: string, format: 'hex' | 'base64'): Buffer {
    if (format === 'base64') {
        const text = payload.replace(/\s+/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
            throw badRequest('模拟数据不是有效的 Base64');
        return Buffer.from(text, 'base64');
    }
    const hex = payload.replace(/\s+/g, '').replace(/^0x/i, '');
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw badRequest('模拟数据不是有效的十六进制（每个字节两位，如 00 0a ff）');
    return Buffer.from(hex, 'hex');
}

/** A 下行 sample: an Alink JSON object. */
function sampleJson(payload: string): Record<string, unknown> {
    let value: unknown;
    try {
        value = JSON.parse(payload);
    } catch {
        throw badRequest('模拟数据不是有效的 JSON');
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('模拟数据应为 JSON 对象');
    return value as Record<string, unknown>;
}

/** What 模拟运行 answers: the converted data, or the script's error. */
function debugAnswer(result: Converted<Record<string, unknown> | Buffer>) {
    if (!result.ok) return { success: false, error: result.error };
    if (Buffer.isBuffer(result.value))
        return { success: true, hex: result.value.toString('hex'), base64: result.value.toString('base64') };
    return { success: true, json: result.value };
}

/** Runs the sample through the script's function of that direction. */
async function debugRun(sandbox: Sandbox, input: DataScriptDebugInput) {
    const format = input.format === 'base64' ? 'base64' : 'hex';
    if (input.direction === 'down')
        return debugAnswer(await protocolToRawData(sandbox, input.script, sampleJson(input.payload)));
    if (input.direction === 'up')
        return debugAnswer(await rawDataToProtocol(sandbox, input.script, sampleBytes(input.payload, format)));
    const topic = input.topic.trim();
    if (!topic.startsWith('/')) throw badRequest('请输入自定义 Topic，如 /{productKey}/{deviceName}/user/update');
    return debugAnswer(await transformPayload(sandbox, input.script, topic, sampleBytes(input.payload, format)));
}

/** Which of the contract's functions the script defines, after evaluating it (a syntax error or top-level loop fails). */
const FUNCTIONS_CHECK = `
;function __dataScriptFunctions() {
    return [typeof rawDataToProtocol, typeof protocolToRawData];
}`;

async function refuseIncomplete(sandbox: Sandbox, script: string): Promise<void> {
    const outcome = await sandbox.run(script + FUNCTIONS_CHECK, '__dataScriptFunctions', []);
    if (!outcome.ok) throw badRequest(`脚本无法发布：${outcome.error}`);
    const [up, down] = outcome.value as string[];
    if (up !== 'function') throw badRequest('脚本无法发布：未定义 rawDataToProtocol 函数');
    if (down !== 'function') throw badRequest('脚本无法发布：未定义 protocolToRawData 函数');
}

/** The script text of a save, publish or run: NUL characters and scripts over 64 KB refused (400). */
async function scriptOf(body: Record<string, unknown>) {
    refuseNul('script', body.script);
    return (await validate(dataScriptSchema, body)).script;
}

/** /api/product/script: a 透传/自定义 product's data-parsing script (数据解析): read, save, publish, 模拟运行. */
export function dataScriptRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const sandbox = sandboxFor(config.scripts);
    const time = (d: Date | null) => (d ? formatTime(d, config.timeZone) : null);

    app.get('/', async (c) => {
        const product = await passthroughProduct(db, c.req.query('productId'));
        const row = await scriptRow(db, product.productId);
        return ok(c, {
            ...product,
            applies: product.dataType === 1,
            draft: row?.draft ?? DEFAULT_SCRIPT,
            draftTime: time(row?.draftTime ?? null),
            published: row?.published ?? null,
            publishedTime: time(row?.publishedTime ?? null),
            version: row?.version ?? 0,
            limits: config.scripts,
        });
    });

    app.post('/save', async (c) => {
        const body = await readBody(c);
        const product = await passthroughProduct(db, body.productId);
        if (product.dataType !== 1) throw badRequest(NOT_PASSTHROUGH);
        await saveDraft(db, product.productId, await scriptOf(body));
        return ok(c, null);
    });

    app.post('/publish', async (c) => {
        const body = await readBody(c);
        const product = await passthroughProduct(db, body.productId);
        if (product.dataType !== 1) throw badRequest(NOT_PASSTHROUGH);
        const script = await scriptOf(body);
        await refuseIncomplete(sandbox, script);
        await publishScript(db, product.productId, script);
        return ok(c, null);
    });

    app.post('/debug', async (c) => {
        const body = await readBody(c);
        for (const [key, value] of Object.entries(body)) refuseNul(key, value);
        await passthroughProduct(db, body.productId);
        const input = await validate(dataScriptDebugSchema, body);
        return ok(c, await debugRun(sandbox, input));
    });

    return app;
}
