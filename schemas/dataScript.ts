import * as yup from 'yup';

/** The largest data-parsing script kept (characters): Alibaba's editor holds scripts of this order. */
export const MAX_SCRIPT_CHARS = 65_536;

/** The largest sample payload 模拟运行 takes (characters of hex, base64 or JSON). */
export const MAX_SAMPLE_CHARS = 65_536;

export const dataScriptSchema = yup.object({
    script: yup
        .string()
        .required('请输入脚本')
        .max(MAX_SCRIPT_CHARS, `脚本不能超过 ${MAX_SCRIPT_CHARS / 1024} KB`)
        .test('nul', '脚本不能包含空字符', (v) => !v?.includes('\u0000')),
});

/** 模拟运行's directions: 上行 (raw bytes → Alink JSON), 下行 (Alink JSON → raw bytes), 自定义 Topic (transformPayload). */
export const DEBUG_DIRECTIONS = ['up', 'down', 'transform'] as const;
export type DebugDirection = (typeof DEBUG_DIRECTIONS)[number];

/** How the raw sample of 上行 and 自定义 Topic is written. */
export const RAW_FORMATS = ['hex', 'base64'] as const;
export type RawFormat = (typeof RAW_FORMATS)[number];

export const dataScriptDebugSchema = dataScriptSchema.shape({
    direction: yup
        .string()
        .required('请选择模拟类型')
        .oneOf([...DEBUG_DIRECTIONS], '模拟类型只能是 up、down 或 transform'),
    format: yup
        .string()
        .oneOf([...RAW_FORMATS], '数据格式只能是 hex 或 base64')
        .default('hex'),
    payload: yup
        .string()
        .required('请输入模拟数据')
        .max(MAX_SAMPLE_CHARS, `模拟数据不能超过 ${MAX_SAMPLE_CHARS / 1024} KB`),
    topic: yup.string().max(256, 'Topic 不能超过 256 个字符').default(''),
});

export type DataScriptDebugInput = yup.InferType<typeof dataScriptDebugSchema>;
