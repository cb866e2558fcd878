import type { FieldDefinition, FormValues, Row } from '../../src/engine/types';
import { SECRET_MASK, type DestinationKindId } from '../../schemas/forwardForms';

/**
 * Each destination kind's configuration as form fields (server/forward/destinations/<kind>.ts has the schemas and
 * their labels). The form keeps every kind's values under its own key (`http.url`, `postgres.host`), so switching
 * the kind keeps what was typed and two kinds' fields of one name (host, port) do not share a value; only the
 * chosen kind's fields are shown and sent as `config`.
 */

type ConfigField = [string, FieldDefinition];

const TEMPLATE_HELP = '可用 ${productKey} ${deviceName} ${topic} ${flowName} 或 SQL 选出的字段名';
const QOS = [
    { id: 0, name: '0（至多一次）' },
    { id: 1, name: '1（至少一次）' },
];

const text = (label: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({ label, ...extra });
const required = (label: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
    label,
    required: true,
    ...extra,
});
const number = (label: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
    label,
    type: 'number',
    number: { grouping: false },
    ...extra,
});
const flag = (label: string): FieldDefinition => ({ label, type: 'boolean' });
const secret = (label: string): FieldDefinition => ({
    label,
    input: 'password',
    helperText: `已设置时显示 ${SECRET_MASK}；保持不变则沿用已保存的${label}，清空也沿用`,
});
const template = (label: string): FieldDefinition => required(label, { helperText: TEMPLATE_HELP });
const choice = (label: string, choices: Array<{ id: string | number; name: string }>): FieldDefinition => ({
    label,
    input: 'select',
    required: true,
    choices,
});
const columnRows = (): FieldDefinition => ({
    label: '列映射',
    input: 'rows',
    helperText: '不填则按 SQL 选出的字段名写入同名列',
    rows: {
        fields: [
            ['column', { label: '列名' }],
            ['from', { label: '选出的字段名' }],
        ],
        addLabel: '添加列映射',
        newRow: { column: '', from: '' },
        rowLabel: '列映射',
        empty: '未设置列映射',
    },
});

/** The fields of each kind, with the defaults of a new destination. */
const KINDS: Record<DestinationKindId, { fields: ConfigField[]; defaults: FormValues }> = {
    republish: {
        fields: [
            ['topicTemplate', template('目标主题')],
            ['qos', choice('QoS', QOS)],
        ],
        defaults: { topicTemplate: '/${productKey}/${deviceName}/user/forward', qos: 0 },
    },
    http: {
        fields: [
            ['url', required('推送地址', { helperText: '以 http:// 或 https:// 开头' })],
            [
                'method',
                choice('请求方法', [
                    { id: 'POST', name: 'POST' },
                    { id: 'PUT', name: 'PUT' },
                ]),
            ],
            [
                'headers',
                {
                    label: '请求头',
                    input: 'rows',
                    rows: {
                        fields: [
                            ['name', { label: '名称' }],
                            ['value', { label: '值' }],
                        ],
                        addLabel: '添加请求头',
                        newRow: { name: '', value: '' },
                        rowLabel: '请求头',
                        empty: '未设置请求头',
                    },
                },
            ],
            [
                'bodyTemplate',
                text('请求体模板', {
                    input: 'code',
                    code: { language: 'json' },
                    helperText: '不填则发送选出的行（JSON）',
                }),
            ],
            ['batch', flag('批量推送')],
            ['hmacSecret', secret('签名密钥')],
            ['signatureHeader', text('签名请求头')],
            ['timeoutMs', number('超时时间（毫秒）')],
        ],
        defaults: {
            url: '',
            method: 'POST',
            headers: [],
            bodyTemplate: '',
            batch: false,
            hmacSecret: '',
            signatureHeader: 'X-Signature',
            timeoutMs: 5000,
        },
    },
    mqtt: {
        fields: [
            ['url', required('服务器地址', { helperText: 'mqtt://主机:端口 或 mqtts://主机:端口' })],
            ['clientId', text('客户端标识', { helperText: '不填则自动生成' })],
            ['username', text('用户名')],
            ['password', secret('密码')],
            ['topicTemplate', template('主题模板')],
            ['qos', choice('QoS', QOS)],
            ['retain', flag('保留消息')],
        ],
        defaults: { url: '', clientId: '', username: '', password: '', topicTemplate: '', qos: 1, retain: false },
    },
    rabbitmq: {
        fields: [
            ['host', required('主机')],
            ['port', number('端口')],
            ['username', text('用户名')],
            ['password', secret('密码')],
            ['vhost', text('虚拟主机')],
            ['tls', flag('TLS')],
            ['exchange', text('交换机', { helperText: '留空为默认交换机（按队列名路由）' })],
            ['routingKeyTemplate', template('路由键模板')],
            ['persistent', flag('持久化消息')],
        ],
        defaults: {
            host: '',
            port: 5672,
            username: 'guest',
            password: '',
            vhost: '/',
            tls: false,
            exchange: '',
            routingKeyTemplate: '',
            persistent: true,
        },
    },
    nats: {
        fields: [
            ['servers', required('服务器地址', { helperText: 'nats://主机:端口，多个以逗号分隔' })],
            ['user', text('用户名')],
            ['password', secret('密码')],
            ['token', secret('令牌')],
            ['subjectTemplate', template('主题模板')],
            ['jetstream', flag('JetStream')],
        ],
        defaults: {
            servers: '',
            user: '',
            password: '',
            token: '',
            subjectTemplate: 'iot.${productKey}.${deviceName}',
            jetstream: false,
        },
    },
    kafka: {
        fields: [
            ['brokers', required('Broker 地址', { helperText: '主机:端口，多个以逗号分隔' })],
            ['clientId', text('客户端标识')],
            ['topicTemplate', template('主题模板')],
            ['ssl', flag('SSL')],
            [
                'acks',
                choice('确认级别', [
                    { id: -1, name: '-1（全部副本）' },
                    { id: 1, name: '1（仅 leader）' },
                ]),
            ],
            [
                'saslMechanism',
                {
                    label: 'SASL 认证',
                    input: 'select',
                    choices: [
                        { id: '', name: '不使用' },
                        { id: SECRET_MASK, name: '沿用已保存的 SASL 设置' },
                        { id: 'plain', name: 'plain' },
                        { id: 'scram-sha-256', name: 'scram-sha-256' },
                        { id: 'scram-sha-512', name: 'scram-sha-512' },
                    ],
                },
            ],
            ['saslUsername', text('SASL 用户名', { visibleWhen: (v) => hasOwnSasl(v.kafka) })],
            ['saslPassword', { ...secret('SASL 密码'), visibleWhen: (v) => hasOwnSasl(v.kafka) }],
        ],
        defaults: {
            brokers: '',
            clientId: 'iot-forward',
            topicTemplate: '',
            ssl: false,
            acks: -1,
            saslMechanism: '',
            saslUsername: '',
            saslPassword: '',
        },
    },
    postgres: {
        fields: [
            ['host', required('主机地址')],
            ['port', number('端口')],
            ['user', required('用户名')],
            ['password', secret('密码')],
            ['database', required('数据库名')],
            ['schema', text('模式名')],
            ['table', required('表名')],
            ['columns', columnRows()],
            ['ssl', flag('启用 SSL')],
        ],
        defaults: {
            host: '',
            port: 5432,
            user: '',
            password: '',
            database: '',
            schema: 'public',
            table: '',
            columns: [],
            ssl: false,
        },
    },
    mysql: {
        fields: [
            ['host', required('主机地址')],
            ['port', number('端口')],
            ['user', required('用户名')],
            ['password', secret('密码')],
            ['database', required('数据库名')],
            ['table', required('表名')],
            ['columns', columnRows()],
            ['ssl', flag('启用 SSL')],
        ],
        defaults: { host: '', port: 3306, user: '', password: '', database: '', table: '', columns: [], ssl: false },
    },
    redisStream: {
        fields: [
            ['host', required('主机地址')],
            ['port', number('端口')],
            ['password', secret('密码')],
            ['db', number('数据库编号')],
            ['streamTemplate', template('Stream 键模板')],
            ['maxLen', number('最大长度', { helperText: '不填则不限制（XADD MAXLEN ~）' })],
        ],
        defaults: { host: '', port: 6379, password: '', db: 0, streamTemplate: '', maxLen: '' },
    },
};

const KIND_IDS = Object.keys(KINDS) as DestinationKindId[];

function hasOwnSasl(config: unknown): boolean {
    const mechanism = (config as Row | undefined)?.saslMechanism;
    return !!mechanism && mechanism !== SECRET_MASK;
}

/** Every kind's fields under its key, each shown only while its kind is chosen. */
export const CONFIG_FIELDS: ConfigField[] = KIND_IDS.flatMap((kind) =>
    KINDS[kind].fields.map(([key, field]): ConfigField => {
        const own = field.visibleWhen;
        return [`${kind}.${key}`, { ...field, visibleWhen: (v: FormValues) => v.kind === kind && (!own || own(v)) }];
    }),
);

/** A new destination's values: every kind's defaults. */
export function newConfigValues(): FormValues {
    return Object.fromEntries(KIND_IDS.map((kind) => [kind, { ...KINDS[kind].defaults }]));
}

/** A saved destination's values: its kind's configuration over that kind's defaults. */
export function savedConfigValues(record: Row): FormValues {
    const values = newConfigValues();
    const kind = record.kind as DestinationKindId;
    if (!KINDS[kind]) return values;
    const config = { ...((record.config as Row | undefined) ?? {}) };
    if (kind === 'kafka') Object.assign(config, kafkaSaslValues(config.sasl));
    values[kind] = { ...KINDS[kind].defaults, ...config };
    return values;
}

function kafkaSaslValues(sasl: unknown): FormValues {
    if (sasl === SECRET_MASK) return { saslMechanism: SECRET_MASK };
    const own = sasl as Row | undefined;
    if (!own?.mechanism) return { saslMechanism: '' };
    return { saslMechanism: own.mechanism, saslUsername: own.username ?? '', saslPassword: own.password ?? '' };
}

/**
 * Optional values left empty are not sent (the server applies its default); an empty exchange is meant, and an
 * empty secret is sent as '' (on edit: keep the stored one).
 */
const sentEmpty = (key: string, field: FieldDefinition) => key === 'exchange' || field.input === 'password';

/** The `config` sent for the chosen kind: only its own fields. */
export function configOf(values: FormValues | undefined): Row {
    const kind = values?.kind as DestinationKindId | undefined;
    if (!kind || !KINDS[kind]) return {};
    const typed = (values?.[kind] as Row | undefined) ?? {};
    const config: Row = {};
    for (const [key, field] of KINDS[kind].fields) {
        const value = typed[key];
        const empty = value === '' || value === undefined || value === null;
        if (empty && !sentEmpty(key, field)) continue;
        config[key] = value ?? '';
    }
    return kind === 'kafka' ? kafkaConfig(config) : config;
}

function kafkaConfig(config: Row): Row {
    const { saslMechanism, saslUsername, saslPassword, ...rest } = config;
    if (saslMechanism === SECRET_MASK) return { ...rest, sasl: SECRET_MASK };
    if (!saslMechanism) return rest;
    return { ...rest, sasl: { mechanism: saslMechanism, username: saslUsername ?? '', password: saslPassword ?? '' } };
}
