import { dataScriptDebugSchema, dataScriptSchema, MAX_SCRIPT_CHARS } from '../schemas/dataScript';
import type { FormResult, Scope, Section } from '../src/engine/types';

/**
 * The product page's 数据解析 tab (docs/device-access.md "数据解析"): the data-parsing script of a 透传/自定义 product,
 * edited, saved as a draft, published, and run on a sample (模拟运行) without saving. A product of the standard format
 * is told why it needs none.
 */

const passthrough = ({ record }: Scope) => Number(record.dataType) === 1;

const DIRECTIONS = [
    { id: 'up', name: '上行（设备原始数据 → Alink JSON）' },
    { id: 'down', name: '下行（Alink JSON → 设备原始数据）' },
    { id: 'transform', name: '自定义 Topic（transformPayload）' },
];

const FORMATS = [
    { id: 'hex', name: '十六进制' },
    { id: 'base64', name: 'Base64' },
];

/** Alibaba's documented examples, one per direction, so 模拟运行 works on the template at once. */
const SAMPLE_RAW = '000000000100320100000000';
const SAMPLE_JSON =
    '{"method":"thing.service.property.set","id":"12345","version":"1.0","params":{"prop_float":123.452,"prop_int16":333,"prop_bool":1}}';

interface ScriptAnswer {
    draft?: string;
    published?: string | null;
    publishedTime?: string | null;
    draftTime?: string | null;
    version?: number;
    limits?: { timeoutMs: number; memoryMb: number };
}

interface RunAnswer {
    success?: boolean;
    json?: unknown;
    hex?: string;
    base64?: string;
    error?: string;
}

/** What 模拟运行 answered: the output (JSON, or the bytes in hex and Base64), or the script's error. */
function runResult(answer: unknown): FormResult {
    const run = (answer ?? {}) as RunAnswer;
    if (!run.success) return { severity: 'error', title: '脚本执行失败', body: run.error ?? '未知错误' };
    if (run.hex !== undefined)
        return {
            severity: 'success',
            title: '模拟运行成功',
            body: `十六进制：${run.hex || '（空）'}\nBase64：${run.base64 ?? ''}`,
        };
    return { severity: 'success', title: '模拟运行成功', body: JSON.stringify(run.json, null, 2) };
}

const scriptCall = {
    call: 'script',
    params: ({ record }: Scope) => ({ productId: record.productId }),
};

/** The status line: which version the broker runs, and when the draft was saved. */
function status(scope: Scope): string {
    const s = (scope.data?.script ?? {}) as ScriptAnswer;
    const limits = s.limits ? `；每条消息最长执行 ${s.limits.timeoutMs} 毫秒，内存上限 ${s.limits.memoryMb} MB` : '';
    const published = s.version
        ? `已发布第 ${s.version} 版（${s.publishedTime ?? '-'}）`
        : '尚未发布：设备上报的透传数据按原始字节保存';
    const draft = s.draftTime ? `，草稿保存于 ${s.draftTime}` : '';
    return `${published}${draft}${limits}。脚本不超过 ${MAX_SCRIPT_CHARS / 1024} KB，使用 ECMAScript 语法，与阿里云物联网平台的数据解析脚本通用。`;
}

export const dataScriptLoads = { script: scriptCall };

export function dataScriptSections(): Section[] {
    return [
        {
            kind: 'notice',
            severity: 'info',
            when: (scope) => !passthrough(scope),
            text: '该产品的数据格式为“标准数据格式（Alink JSON）”：设备直接上报 Alink JSON，平台按物模型校验和保存，无需数据解析脚本。只有“透传/自定义”格式的产品才需要用脚本把设备的原始字节转为 Alink JSON。',
        },
        {
            kind: 'form',
            title: '数据解析脚本',
            when: passthrough,
            note: status,
            load: scriptCall,
            defaults: (scope, loaded) => ({
                script: (loaded as ScriptAnswer | undefined)?.draft ?? '',
                direction: 'up',
                format: 'hex',
                payload: SAMPLE_RAW,
                topic: `/${String(scope.record.productKey ?? '')}/deviceName/user/update`,
            }),
            fields: [
                ['script', { label: '脚本', input: 'code', required: true }],
                ['direction', { label: '模拟类型', type: 'select', input: 'radio', choices: DIRECTIONS }],
                [
                    'format',
                    {
                        label: '数据格式',
                        type: 'select',
                        input: 'radio',
                        choices: FORMATS,
                        visibleWhen: (v) => v.direction !== 'down',
                    },
                ],
                [
                    'topic',
                    {
                        label: '自定义 Topic',
                        visibleWhen: (v) => v.direction === 'transform',
                        helperText: '如 /{ProductKey}/{DeviceName}/user/update',
                    },
                ],
                [
                    'payload',
                    {
                        label: '模拟输入',
                        type: 'longText',
                        input: 'textarea',
                        helperText: `上行与自定义 Topic 填原始数据（如 ${SAMPLE_RAW}），下行填 Alink JSON（如 ${SAMPLE_JSON.slice(0, 48)}…）`,
                    },
                ],
            ],
            submits: [
                {
                    label: '模拟运行',
                    call: {
                        call: 'debugScript',
                        params: ({ record, values }) => ({ productId: record.productId, ...values }),
                    },
                    schema: dataScriptDebugSchema,
                    show: runResult,
                },
                {
                    label: '保存草稿',
                    right: 'product.edit',
                    call: {
                        call: 'saveScript',
                        params: ({ record, values }) => ({ productId: record.productId, script: values?.script }),
                    },
                    schema: dataScriptSchema,
                    success: '草稿已保存',
                    refresh: ['products'],
                },
                {
                    label: '发布',
                    primary: true,
                    right: 'product.edit',
                    call: {
                        call: 'publishScript',
                        params: ({ record, values }) => ({ productId: record.productId, script: values?.script }),
                    },
                    schema: dataScriptSchema,
                    confirmTitle: '发布脚本',
                    confirm: '发布后，该产品设备的透传数据、平台的应答与下发都将由此脚本转换。确定发布吗？',
                    success: '发布成功',
                    refresh: ['products'],
                },
            ],
        },
    ];
}
