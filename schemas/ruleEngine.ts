import * as yup from 'yup';
import { timeRangeRule } from '../src/engine/timeRange';

/**
 * Rules (场景联动), alert rules and alerts: the choices and limits the console's forms and the server share
 * (docs/rules.md). The server checks a rule against the product's thing model (server/rules/validate.ts).
 */

export const RULE_TYPES = [
    { id: 1, name: '场景联动' },
    { id: 2, name: '告警规则' },
];

export const TRIGGER_TYPES = [
    { id: 'property', name: '属性上报' },
    { id: 'event', name: '事件上报' },
    { id: 'status', name: '设备上下线' },
    { id: 'schedule', name: '定时触发' },
    { id: 'otaFailed', name: '固件升级失败' },
];

export const STATUS_CHOICES = [
    { id: 'any', name: '上线或下线' },
    { id: 'online', name: '上线' },
    { id: 'offline', name: '下线' },
];

export const OPERATORS = [
    { id: '>', name: '大于' },
    { id: '>=', name: '大于等于' },
    { id: '<', name: '小于' },
    { id: '<=', name: '小于等于' },
    { id: '==', name: '等于' },
    { id: '!=', name: '不等于' },
    { id: 'between', name: '介于（含两端）' },
];
/** Operators that only make sense on numbers (int, float, double, date). */
export const NUMERIC_OPERATORS = ['>', '>=', '<', '<=', 'between'];
export const NUMERIC_TYPES = ['int', 'float', 'double', 'date'];

export const MATCH_CHOICES = [
    { id: 'all', name: '满足全部条件' },
    { id: 'any', name: '满足任一条件' },
];

export const ACTION_TYPES = [
    { id: 'setProperty', name: '设置设备属性' },
    { id: 'invokeService', name: '调用设备服务' },
    { id: 'alert', name: '产生告警' },
    { id: 'notify', name: '发送通知' },
];

/** SPEC.md §4: 1 urgent, 2 severe, 3 general. */
export const ALERT_LEVELS = [
    { id: 1, name: '紧急' },
    { id: 2, name: '严重' },
    { id: 3, name: '一般' },
];

/** alert_events.status: 0 pending, 1 handled. */
export const ALERT_STATUSES = [
    { id: 0, name: '待处理' },
    { id: 1, name: '已处理' },
];

export const CHANNEL_TYPES = [
    { id: 'webhook', name: 'Webhook' },
    { id: 'dingtalk', name: '钉钉机器人' },
    { id: 'wecom', name: '企业微信机器人' },
    { id: 'email', name: '邮件' },
];

export const RULE_LIMITS = {
    nameMax: 30,
    descriptionMax: 200,
    rowsMax: 20,
    durationMax: 86_400,
    contentMax: 500,
    remarkMax: 200,
} as const;

/** The variables a content or body template may name (docs/rules.md). */
export const TEMPLATE_HELP =
    '可用变量：${deviceName} ${productKey} ${ruleName} ${identifier} ${value} ${level} ${time}，以及上报的任一标识符如 ${temperature}';

export const RULE_MESSAGES = {
    name: '请输入规则名称',
    nameLength: `规则名称不能超过${RULE_LIMITS.nameMax}个字符`,
    product: '请选择产品',
    triggers: '请至少添加一个触发条件',
    actions: '请至少添加一个执行动作',
    tooManyRows: `触发条件、过滤条件、执行动作各最多${RULE_LIMITS.rowsMax}条`,
    duration: `持续时长须为0~${RULE_LIMITS.durationMax}秒的整数`,
    timeWindow: '生效时段格式应为 HH:mm',
    level: '请选择告警级别（1 紧急、2 严重、3 一般）',
    content: '请输入告警内容',
    remark: `处理备注不能超过${RULE_LIMITS.remarkMax}个字符`,
    channelName: '请输入通知方式名称',
    channelType: '请选择通知类型',
    url: '请输入以 http:// 或 https:// 开头的 Webhook 地址',
    smtpHost: '请输入 SMTP 服务器',
    mailTo: '请输入收件人邮箱',
} as const;

/** The rule editor's form (scene linkage and alert rules); the server checks the rows against the thing model. */
export const ruleFormSchema = yup.object({
    name: yup.string().trim().required(RULE_MESSAGES.name).max(RULE_LIMITS.nameMax, RULE_MESSAGES.nameLength),
    productKey: yup.string().required(RULE_MESSAGES.product),
    triggers: yup.array().min(1, RULE_MESSAGES.triggers).max(RULE_LIMITS.rowsMax, RULE_MESSAGES.tooManyRows),
    conditions: yup.array().max(RULE_LIMITS.rowsMax, RULE_MESSAGES.tooManyRows),
    actions: yup.array().min(1, RULE_MESSAGES.actions).max(RULE_LIMITS.rowsMax, RULE_MESSAGES.tooManyRows),
    durationSeconds: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? 0 : v))
        .typeError(RULE_MESSAGES.duration)
        .integer(RULE_MESSAGES.duration)
        .min(0, RULE_MESSAGES.duration)
        .max(RULE_LIMITS.durationMax, RULE_MESSAGES.duration),
    /** Empty: the whole day; an end not after the start is on the next day (the server refuses equal ends). */
    timeWindow: timeRangeRule({ label: '生效时段' }),
});

/** 处理 in bulk: a remark is required. */
export const alertHandleSchema = yup.object({
    remark: yup.string().trim().required('请输入处理备注').max(RULE_LIMITS.remarkMax, RULE_MESSAGES.remark),
});

/** A notification channel. */
export const channelFormSchema = yup.object({
    name: yup.string().trim().required(RULE_MESSAGES.channelName).max(RULE_LIMITS.nameMax),
    type: yup.string().required(RULE_MESSAGES.channelType),
    url: yup
        .string()
        .trim()
        .when('type', {
            is: (t: string) => t !== 'email',
            then: (s) => s.required(RULE_MESSAGES.url).matches(/^https?:\/\/\S+$/, RULE_MESSAGES.url),
        }),
    host: yup
        .string()
        .trim()
        .when('type', { is: 'email', then: (s) => s.required(RULE_MESSAGES.smtpHost) }),
    to: yup
        .string()
        .trim()
        .when('type', { is: 'email', then: (s) => s.required(RULE_MESSAGES.mailTo) }),
});
