import * as yup from 'yup';
import { VALUE_CHARSET } from './rules';

/** SPEC.md §9: subscription and consumer group lists default 10; options 5, 10, 20. */
export const SUBSCRIPTION_PAGE_SIZE = 10;
export const SUBSCRIPTION_PAGE_SIZES = [5, 10, 20] as const;
export const CONSUMER_GROUP_NAME_MAX = 30;
/** The group every project has from its creation. */
export const DEFAULT_CONSUMER_GROUP = 'default';
/** Subscription type / message type: AMQP only / post only (SPEC.md §9). */
export const SUBSCRIPTION_TYPE = 'AMQP';
export const MESSAGE_TYPES = [{ id: 'post', name: '设备上报消息' }] as const;

export const SUBSCRIPTION_MESSAGES = {
    productRequired: '请选择产品',
    groupRequired: '请选择消费者组',
    messageRequired: '请选择消息类型',
    projectRequired: '请选择项目',
    deleteConfirm: '确认删除该订阅吗？',
    deleted: '删除成功！',
    deleteFailed: '删除失败！',
    groupNameRequired: '请输入消费者组名称，须以英文字母开头',
    groupNameStart: '须以英文字母开头',
    groupNameMax: '长度不能超过30',
    groupNameCharset: 'Value支持中文、英文字母、数字、下划线（_）、中划线（-）、点号（.）以及半角冒号（:）',
    groupDeleteConfirm: '确认删除该消费者组吗？',
    groupNameTaken: '该项目下已有同名消费者组',
    groupNotFound: '消费者组不存在',
    groupOtherProject: '消费者组不属于该项目',
    productSubscribed: '该产品已有订阅，请编辑已有订阅',
    productNotFound: '产品不存在',
    subscriptionNotFound: '订阅不存在',
    clearConfirm: '确认清空该消费者组的堆积消息吗？清空后无法恢复。',
    cleared: '已清空堆积',
    accessKeyNotFound: 'AccessKey 不存在',
    accessKeyLimit: '每个用户最多创建 5 个 AccessKey',
    accessKeyDeleteConfirm: '确认删除该 AccessKey 吗？使用它的消费端将无法再登录。',
} as const;

export const consumerGroupNameRule = yup
    .string()
    .trim()
    .required(SUBSCRIPTION_MESSAGES.groupNameRequired)
    .max(CONSUMER_GROUP_NAME_MAX, SUBSCRIPTION_MESSAGES.groupNameMax)
    .matches(/^[A-Za-z]/, { message: SUBSCRIPTION_MESSAGES.groupNameStart, excludeEmptyString: true })
    .matches(VALUE_CHARSET, { message: SUBSCRIPTION_MESSAGES.groupNameCharset, excludeEmptyString: true });

/** Consumer group create / edit (POST /api/consumerGroup/save; id empty on create). */
export const consumerGroupSchema = yup.object({
    projectCode: yup.string().trim().required(SUBSCRIPTION_MESSAGES.projectRequired),
    name: consumerGroupNameRule,
});

/** A list of ids from a form: an array, or one comma-separated string. */
const idListRule = (message: string) =>
    yup
        .array()
        .transform((_value, raw) => {
            const parts = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
            return parts
                .map((p) => String(p).trim())
                .filter((p) => p !== '')
                .map(Number);
        })
        .of(yup.number().integer(message).positive(message).max(2_147_483_647, message).required(message))
        .min(1, message)
        .required(message);

const messageRule = yup
    .array()
    .transform((_value, raw) => {
        const parts = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
        return parts.map((p) => String(p).trim()).filter((p) => p !== '');
    })
    .of(yup.string().oneOf(['post'], SUBSCRIPTION_MESSAGES.messageRequired).required())
    .min(1, SUBSCRIPTION_MESSAGES.messageRequired)
    .required(SUBSCRIPTION_MESSAGES.messageRequired);

/**
 * Subscription create / edit (POST /api/subscription/save and /edit): the product by its ProductKey, the consumer
 * groups by id (`group`, comma-separated or repeated), the message types (`message`, only 'post').
 */
export const subscriptionSchema = yup.object({
    projectCode: yup.string().trim().optional(),
    productKey: yup.string().trim().required(SUBSCRIPTION_MESSAGES.productRequired),
    group: idListRule(SUBSCRIPTION_MESSAGES.groupRequired),
    message: messageRule,
});

/** The subscription dialog: the same rules, with the project chosen first. */
export const subscriptionFormSchema = subscriptionSchema.shape({
    projectCode: yup.string().trim().required(SUBSCRIPTION_MESSAGES.projectRequired),
});
