import SettingsEthernetIcon from '@mui/icons-material/SettingsEthernet';
import { defineResource, type FieldDefinition } from '../src/engine/types';
import { memberList } from './cluster/members';

/**
 * /platform (SPEC.md's shell route; its content was not shown): what an integrator needs to connect devices and
 * applications to this platform, from GET /api/platform/info.
 */
const f = (label: string, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({ label, ...extra });

export default defineResource({
    name: 'platform',
    label: '接入信息',
    hidden: true,
    menu: { label: '接入信息', to: '/platform', order: 70, icon: SettingsEthernetIcon },
    icon: SettingsEthernetIcon,
    fields: {
        mqttUrl: f('MQTT（TCP）', {
            copy: true,
            render: (r) =>
                String(r.mqttUrl ?? 'MQTT 端口被其他程序占用，设备暂不能通过 TCP 接入（设置 MQTT_PORT 后重启）'),
        }),
        mqttWsUrl: f('MQTT over WebSocket', {
            copy: true,
            render: (r) => String(r.mqttWsUrl ?? '已关闭（TLS_ONLY=1，请使用 WSS）'),
        }),
        mqttsUrl: f('MQTTS（TLS，securemode=2）', {
            copy: true,
            render: (r) => String(r.mqttsUrl ?? '未开启（TLS=0）或端口被占用（设置 MQTTS_PORT 后重启）'),
        }),
        mqttWssUrl: f('MQTT over WSS', { copy: true, render: (r) => String(r.mqttWssUrl ?? '未开启') }),
        amqpsUrl: f('AMQPS（AMQP 1.0 over TLS）', {
            copy: true,
            render: (r) => String(r.amqpsUrl ?? '未开启（TLS=0）或端口被占用（设置 AMQPS_PORT 后重启）'),
        }),
        httpsUrl: f('控制台 HTTPS', { copy: true, render: (r) => String(r.httpsUrl ?? '未开启') }),
        tlsFingerprint: f('CA 证书指纹（SHA-256）', { copy: true, render: (r) => String(r.tlsFingerprint ?? '—') }),
        caCertificate: f('CA 证书', {
            render: (r) =>
                r.caCertificate ? (
                    <a href={String(r.caCertificate)} download="iot-platform-ca.pem">
                        下载 CA 证书（iot-platform-ca.pem），设备和客户端以此校验服务端
                    </a>
                ) : (
                    '无（TLS 未开启，或所用证书未附带 CA 证书链：设备使用系统信任的根证书）'
                ),
        }),
        deviceSignIn: f('设备登录方式', { type: 'longText' }),
        amqpUrl: f('AMQP 1.0', {
            render: (r) =>
                String(r.amqpUrl ?? 'AMQP 端口被其他程序占用，服务端订阅暂不能消费（设置 AMQP_PORT 后重启）'),
        }),
        amqpSignIn: f('应用登录方式', { type: 'longText', render: (r) => String(r.amqpSignIn ?? '—') }),
        sipUrl: f('GB28181 SIP（UDP）', {
            copy: true,
            render: (r) => String(r.sipUrl ?? 'SIP 端口不可用，GB28181 摄像头暂不能注册（设置 SIP_PORT 后重启）'),
        }),
        store: f('数据库', {
            render: (r) => (r.store === 'postgres' ? 'PostgreSQL（DATABASE_URL）' : 'PGlite（内嵌数据库）'),
        }),
        storeLocation: f('数据库位置'),
        filesDir: f('设备文件目录（FILES_DIR）'),
        logRetentionDays: f('消息日志与属性历史保留', {
            render: (r) => `${String(r.logRetentionDays)} 天（LOG_RETENTION_DAYS）`,
        }),
        cluster: f('多实例集群', { render: (r) => (r.cluster ? '已开启（REDIS_URL）' : '未开启（单实例）') }),
        version: f('平台版本'),
        timeZone: f('时区'),
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/platform',
            title: '接入信息',
            record: { call: 'info', loading: '平台信息加载中…' },
            sections: [
                {
                    kind: 'notice',
                    severity: 'info',
                    text: '设备通过 MQTT 接入，应用通过 AMQP 1.0 接收设备消息。接入步骤和可直接运行的示例见“帮助中心 › 用户手册”。',
                },
                {
                    kind: 'fields',
                    title: '设备接入（MQTT 3.1.1）',
                    columns: 1,
                    fields: ['mqttUrl', 'mqttWsUrl', 'deviceSignIn'],
                },
                { kind: 'fields', title: '应用接入（AMQP 1.0）', columns: 1, fields: ['amqpUrl', 'amqpSignIn'] },
                {
                    kind: 'fields',
                    title: 'TLS 加密接入',
                    columns: 1,
                    fields: ['mqttsUrl', 'mqttWssUrl', 'amqpsUrl', 'httpsUrl', 'tlsFingerprint', 'caCertificate'],
                },
                { kind: 'fields', title: '视频接入（GB28181）', columns: 1, fields: ['sipUrl'] },
                {
                    kind: 'fields',
                    title: '数据存储',
                    columns: 1,
                    fields: ['store', 'storeLocation', 'filesDir', 'logRetentionDays', 'cluster'],
                },
                {
                    kind: 'list',
                    list: {
                        ...memberList('nodes'),
                        title: '集群成员（各服务进程及其连接、消息份额）',
                    },
                },
                { kind: 'fields', title: '版本', columns: 1, fields: ['version', 'timeZone'] },
            ],
        },
    ],
    api: {
        success: 'code200',
        custom: {
            info: { get: '/api/platform/info', read: 'data' },
            nodes: { get: '/api/platform/info', read: 'data.nodes' },
        },
    },
});
