import * as yup from 'yup';
import { requiredInt } from './rules';

/** Edge drivers and instances (Alibaba Link IoT Edge's model): shared by the console's forms and the server. */

export const EDGE_PROTOCOLS = [
    { id: 'modbus_tcp', name: 'Modbus TCP' },
    { id: 'modbus_rtu', name: 'Modbus RTU' },
    { id: 'opc_ua', name: 'OPC UA' },
    { id: 'bacnet', name: 'BACnet' },
    { id: 'custom', name: '自定义' },
] as const;

/** A deployment's state: pending until the gateway answers. */
export const DEPLOY_STATES = [
    { id: 'pending', name: '等待应答', color: 'info' },
    { id: 'success', name: '部署成功', color: 'success' },
    { id: 'failed', name: '部署失败', color: 'error' },
    { id: 'offline', name: '网关离线', color: 'default' },
] as const;

const NAME = /^[\u4e00-\u9fa5A-Za-z0-9_\-.]+$/;
const NAME_TEXT = '名称支持中文、英文字母、数字、下划线、中划线和点号';

/** A JSON object written as text (configuration, configuration schema); empty means {}. */
export const jsonObjectText = (label: string) =>
    yup
        .string()
        .max(20000, `${label}不得超过20000个字符`)
        .test('json', `${label}必须是JSON对象`, (v) => {
            if (!v || !v.trim()) return true;
            try {
                const parsed: unknown = JSON.parse(v);
                return !!parsed && typeof parsed === 'object' && !Array.isArray(parsed);
            } catch {
                return false;
            }
        });

export const edgeDriverSchema = yup.object({
    name: yup.string().trim().required('请输入驱动名称').max(64, '驱动名称不得超过64个字符').matches(NAME, NAME_TEXT),
    version: yup
        .string()
        .trim()
        .required('请输入驱动版本')
        .matches(/^\d+\.\d+\.\d+$/, { message: '版本号格式为x.y.z，例如1.0.0', excludeEmptyString: true }),
    protocol: yup
        .string()
        .required('请选择协议类型')
        .oneOf(
            EDGE_PROTOCOLS.map((p) => p.id),
            '请选择协议类型',
        ),
    description: yup.string().trim().max(200, '描述不得超过200个字符'),
    configSchema: jsonObjectText('配置模板'),
});

export const edgeInstanceSchema = yup.object({
    name: yup.string().trim().required('请输入实例名称').max(64, '实例名称不得超过64个字符').matches(NAME, NAME_TEXT),
    spec: yup.string().trim().max(64, '规格不得超过64个字符'),
    gatewayId: requiredInt('请选择网关设备'),
    remark: yup.string().trim().max(200, '备注不得超过200个字符'),
});

export const edgeInstanceDriverSchema = yup.object({
    driverId: requiredInt('请选择驱动'),
    config: jsonObjectText('驱动配置'),
});

// ---- the detail's 函数计算 / 流数据分析 / 消息路由 / 设置 tabs (Link IoT Edge's instance console) ----

export const EDGE_RUNTIMES = [
    { id: 'nodejs20', name: 'Node.js 20' },
    { id: 'python3', name: 'Python 3' },
    { id: 'java8', name: 'Java 8' },
] as const;

/** A function runs on each message routed to it (trigger) or stays up (long-running). */
export const EDGE_FUNCTION_MODES = [
    { id: 'trigger', name: '事件触发' },
    { id: 'long', name: '长驻运行' },
] as const;

export const EDGE_WINDOWS = [
    { id: 'none', name: '不开窗（逐条）' },
    { id: 'tumbling', name: '滚动窗口' },
    { id: 'sliding', name: '滑动窗口' },
] as const;

/** Where a stream job's output or a route's messages go. */
export const EDGE_TARGETS = [
    { id: 'cloud', name: 'IoT Hub（云端）' },
    { id: 'function', name: '函数计算' },
    { id: 'stream', name: '流数据分析' },
] as const;

export const ROUTE_SOURCES = [
    { id: 'device', name: '设备' },
    { id: 'allDevices', name: '所有设备' },
    { id: 'function', name: '函数计算' },
    { id: 'stream', name: '流数据分析' },
] as const;

export const LOG_LEVELS = [
    { id: 'debug', name: 'DEBUG' },
    { id: 'info', name: 'INFO' },
    { id: 'warn', name: 'WARN' },
    { id: 'error', name: 'ERROR' },
] as const;

export const QOS_LEVELS = [
    { id: 0, name: 'QoS 0（最多一次）' },
    { id: 1, name: 'QoS 1（至少一次）' },
] as const;

/** An instance's settings before it saves its own. */
export const EDGE_SETTINGS_DEFAULTS = {
    logLevel: 'info',
    logUpload: true,
    logRetentionDays: 7,
    cacheSizeMb: 64,
    heartbeatSeconds: 60,
};

/** MQTT 3.1.1 §4.7: `+` fills one whole level, `#` only the whole last level; no NUL; 1 to 256 characters here. */
export function isTopicFilter(value: string): boolean {
    if (!value || value.length > 256 || value.includes('\u0000')) return false;
    const levels = value.split('/');
    return levels.every((l, i) => (l === '#' ? i === levels.length - 1 : l === '+' || !/[+#]/.test(l)));
}

export const TOPIC_FILTER_TEXT = 'Topic过滤器不是合法的MQTT主题过滤器：+ 只能单独占一级，# 只能单独作为最后一级';

const ids = <T extends ReadonlyArray<{ id: string | number }>>(list: T) => list.map((x) => x.id);
const intIn = (message: string, min: number, max: number) =>
    yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError(message)
        .required(message)
        .integer(message)
        .min(min, message)
        .max(max, message);
const topicFilter = (required: string) =>
    yup
        .string()
        .trim()
        .required(required)
        .test('topic-filter', TOPIC_FILTER_TEXT, (v) => !v || isTopicFilter(v));
const choice = (list: ReadonlyArray<{ id: string | number }>, message: string) =>
    yup.string().required(message).oneOf(ids(list).map(String), message);
const edgeName = (what: string) =>
    yup.string().trim().required(`请输入${what}名称`).max(64, `${what}名称不得超过64个字符`).matches(NAME, NAME_TEXT);

/** An environment variable's name: a letter or underscore, then letters, digits or underscores. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const ENV_NAME_TEXT = '环境变量名只能包含字母、数字和下划线，且不能以数字开头';
export const ENV_MAX = 50;

export const edgeFunctionSchema = yup.object({
    name: edgeName('函数'),
    runtime: choice(EDGE_RUNTIMES, '请选择运行环境'),
    handler: yup
        .string()
        .trim()
        .required('请输入函数入口')
        .max(128, '函数入口不得超过128个字符')
        .matches(/^[A-Za-z0-9_\-./]+$/, '函数入口格式为 文件名.函数名，例如 index.handler'),
    code: yup.string().max(65536, '函数代码不得超过65536个字符'),
    memoryMb: intIn('内存规格为16~2048之间的整数（MB）', 16, 2048),
    timeoutSeconds: intIn('超时时间为1~900之间的整数（秒）', 1, 900),
    mode: choice(EDGE_FUNCTION_MODES, '请选择运行方式'),
    description: yup.string().trim().max(200, '描述不得超过200个字符'),
});

/** The form's environment variables (key / value rows). */
export const edgeEnvRows = yup
    .array()
    .of(
        yup.object({
            key: yup.string().trim().required('请输入变量名').matches(ENV_NAME, ENV_NAME_TEXT),
            value: yup.string().max(1000, '变量值不得超过1000个字符'),
        }),
    )
    .max(ENV_MAX, `环境变量最多${ENV_MAX}个`)
    .test('unique', '环境变量名不能重复', (rows) => {
        const keys = (rows ?? []).map((r) => String(r?.key ?? '').trim());
        return new Set(keys).size === keys.length;
    });

export const edgeFunctionFormSchema = edgeFunctionSchema.shape({ env: edgeEnvRows });

const namedTarget = (typeField: string, message: string) =>
    yup
        .string()
        .trim()
        .max(64, message)
        .when(typeField, {
            is: (t: string) => t === 'function' || t === 'stream',
            then: (s) => s.required(message),
        });

export const edgeStreamSchema = yup.object({
    name: edgeName('任务'),
    sourceTopic: topicFilter('请输入数据源Topic'),
    windowType: choice(EDGE_WINDOWS, '请选择窗口类型'),
    windowSeconds: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? 0 : v))
        .typeError('窗口长度为1~86400之间的整数（秒）')
        .integer('窗口长度为1~86400之间的整数（秒）')
        .when('windowType', {
            is: 'none',
            then: (s) => s.min(0).max(86400, '窗口长度为1~86400之间的整数（秒）'),
            otherwise: (s) =>
                s.min(1, '窗口长度为1~86400之间的整数（秒）').max(86400, '窗口长度为1~86400之间的整数（秒）'),
        }),
    statement: yup
        .string()
        .trim()
        .required('请输入分析语句')
        .max(4000, '分析语句不得超过4000个字符')
        .matches(/^select\s/i, '分析语句必须是以 SELECT 开头的 SQL 语句'),
    targetType: choice(EDGE_TARGETS, '请选择输出目标'),
    targetName: namedTarget('targetType', '请选择输出到的函数或任务'),
    description: yup.string().trim().max(200, '描述不得超过200个字符'),
});

export const edgeRouteSchema = yup.object({
    sourceType: choice(ROUTE_SOURCES, '请选择消息来源'),
    sourceName: yup
        .string()
        .trim()
        .max(64, '请选择来源设备、函数或任务')
        .when('sourceType', {
            is: (t: string) => t !== 'allDevices',
            then: (s) => s.required('请选择来源设备、函数或任务'),
        }),
    topicFilter: topicFilter('请输入Topic过滤器'),
    targetType: choice(EDGE_TARGETS, '请选择消息目标'),
    targetName: namedTarget('targetType', '请选择目标函数或任务'),
    qos: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError('QoS只能是0或1')
        .required('请选择QoS')
        .oneOf([0, 1], 'QoS只能是0或1'),
});

export const edgeSettingsSchema = yup.object({
    logLevel: choice(LOG_LEVELS, '请选择日志级别'),
    logUpload: yup.boolean().typeError('日志上云只能是开启或关闭').required('请选择是否日志上云'),
    logRetentionDays: intIn('日志保留天数为1~30之间的整数', 1, 30),
    cacheSizeMb: intIn('离线消息缓存为1~1024之间的整数（MB）', 1, 1024),
    heartbeatSeconds: intIn('心跳间隔为10~600之间的整数（秒）', 10, 600),
});
export type EdgeSettings = yup.InferType<typeof edgeSettingsSchema>;
