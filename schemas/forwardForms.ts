import * as yup from 'yup';

/**
 * The console's forms of data forwarding (数据流转): destinations, flows and the debug dialog. The server validates
 * each destination kind's configuration with its own schema (server/forward/destinations/<kind>.ts) and answers 400
 * with the field's Chinese message, which the form shows; these check what the console can say before sending.
 */

/** The kinds of destination (GET /api/forward/destination/kinds answers the same ids and labels). */
export const DESTINATION_KINDS = [
    { id: 'republish', name: '平台内主题' },
    { id: 'http', name: 'HTTP(S) 推送' },
    { id: 'mqtt', name: 'MQTT 桥接' },
    { id: 'rabbitmq', name: 'RabbitMQ (AMQP 0-9-1)' },
    { id: 'nats', name: 'NATS / JetStream' },
    { id: 'kafka', name: 'Kafka' },
    { id: 'postgres', name: 'PostgreSQL 数据表' },
    { id: 'mysql', name: 'MySQL / MariaDB 数据表' },
    { id: 'redisStream', name: 'Redis Stream' },
] as const;

export type DestinationKindId = (typeof DESTINATION_KINDS)[number]['id'];

/** What the server answers in place of a stored secret, and what sent back keeps it. */
export const SECRET_MASK = '******';

export const FORWARD_MESSAGES = {
    nameRequired: '请输入名称',
    nameMax: '名称不得超过64个字符',
    projectRequired: '请选择项目',
    kindRequired: '请选择目的地类型',
    sqlRequired: '请输入 SQL',
    payloadInvalid: '消息内容必须是 JSON 对象',
    destinationDeleteConfirm: '确定删除该数据目的地吗？',
    flowDeleteConfirm: '确定删除该流转规则吗？删除后不再转发消息。',
    deadRedeliverConfirm: '确定重新投递选中的死信吗？',
    deadDeleteConfirm: '确定删除选中的死信吗？删除后无法恢复。',
} as const;

const M = FORWARD_MESSAGES;

const nameRule = yup.string().trim().required(M.nameRequired).max(64, M.nameMax);
const projectRule = yup
    .number()
    .transform((v: number, raw: unknown) => (raw === '' || raw === null ? undefined : v))
    .typeError(M.projectRequired)
    .required(M.projectRequired);

/** Destination create / edit: name, project and kind; the kind's configuration is the server's to check. */
export const destinationFormSchema = yup.object({
    name: nameRule,
    projectId: projectRule,
    kind: yup.string().trim().required(M.kindRequired),
});

/** Flow create / edit (POST /api/forward/flow/save): the SQL's own errors come from the server with a position. */
export const flowFormSchema = yup.object({
    name: nameRule,
    projectId: projectRule,
    sql: yup.string().trim().required(M.sqlRequired),
});

/** Whether a text is a JSON object (the debug dialog's message sample). */
export function isJsonObject(text: unknown): boolean {
    if (typeof text !== 'string') return false;
    try {
        const value: unknown = JSON.parse(text);
        return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
        return false;
    }
}

/** The debug dialog: the SQL and a JSON object as the message. */
export const flowDebugSchema = yup.object({
    sql: yup.string().trim().required(M.sqlRequired),
    payload: yup.string().test('json', M.payloadInvalid, isJsonObject),
});
