import * as yup from 'yup';

/** 应用领域 of a published app: the platform's scenes. */
export const APP_DOMAINS = ['智慧办公', '智慧城市', '智慧车辆', '工业互联网'] as const;

/** 上架应用 (/appconfig). */
export const appSchema = yup.object({
    name: yup.string().trim().required('请输入应用名称').max(30, '应用名称不得超过30个字符'),
    domain: yup
        .string()
        .required('请选择应用领域')
        .oneOf([...APP_DOMAINS], '请选择应用领域'),
    description: yup.string().trim().max(200, '应用描述不得超过200个字符'),
});

export const ALARM_LEVELS = [
    { id: 1, name: '紧急' },
    { id: 2, name: '严重' },
    { id: 3, name: '一般' },
];

/** How an app alarm is sent: the rules' notifier's kinds (server/rules/notify.ts). */
export const NOTIFY_TYPES = [
    { id: 'webhook', name: 'Webhook' },
    { id: 'dingtalk', name: '钉钉机器人' },
    { id: 'wecom', name: '企业微信机器人' },
    { id: 'email', name: '邮件' },
];

/**
 * 添加告警 (/applymanage): which level is notified, how and to whom. Sent when an alert rule raises an alert of that
 * level while the app is in use (server/rules/appAlarms.ts).
 */
export const appAlarmSchema = yup.object({
    name: yup.string().trim().required('请输入告警名称').max(30, '告警名称不得超过30个字符'),
    level: yup.number().typeError('请选择告警级别').required('请选择告警级别').oneOf([1, 2, 3], '请选择告警级别'),
    notifyType: yup
        .string()
        .required('请选择通知方式')
        .oneOf(
            NOTIFY_TYPES.map((t) => t.id),
            '请选择通知方式',
        ),
    receiver: yup
        .string()
        .trim()
        .required('请输入接收人')
        .max(200, '接收人不得超过200个字符')
        .when('notifyType', ([type], s) =>
            type === 'email'
                ? s.email('请输入正确的邮箱地址')
                : s.matches(/^https?:\/\/\S+$/, '请输入以 http:// 或 https:// 开头的地址'),
        ),
    content: yup.string().trim().max(200, '告警内容不得超过200个字符'),
});
