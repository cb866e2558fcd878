import ExtensionIcon from '@mui/icons-material/Extension';
import { defineResource, type Action, type FieldDefinition, type Row } from '../src/engine/types';
import { memberList } from './cluster/members';

/**
 * /vaServices 增值服务 (SPEC.md's route; its content was not shown): the services this platform adds on top of device
 * access, whether each runs on this server and where it is used, from the same GET /api/platform/info as /platform.
 */
const f = (label: string, render: (r: Row) => string): FieldDefinition => ({ label, render });
const open = (label: string, to: string): Action => ({ kind: 'link', label, to: () => to, variant: 'outlined' });

export default defineResource({
    name: 'vaServices',
    label: '增值服务',
    hidden: true,
    menu: { label: '增值服务', to: '/vaServices', order: 72, icon: ExtensionIcon },
    icon: ExtensionIcon,
    fields: {
        amqp: f('状态', (r) => {
            const urls = [r.amqpUrl, r.amqpsUrl].filter(Boolean).map(String);
            return urls.length ? `运行中：${urls.join('，')}` : '未运行（AMQP 端口不可用，见启动输出）';
        }),
        amqpUse: f('用途', () => '设备上报的消息按产品订阅，推送到消费者组；应用用 AccessKey 以 AMQP 1.0 接收'),
        rules: f('状态', () => '运行中：每条设备消息到达即按规则判断'),
        rulesUse: f(
            '用途',
            () => '场景联动（设置属性、调用服务）、告警、通知（Webhook、钉钉、企业微信、邮件），规则日志可查',
        ),
        video: f('状态', (r) =>
            r.videoToolMissing
                ? String(r.videoToolMissing)
                : `RTSP 拉流转 HLS 在浏览器播放；GB28181 摄像头注册地址 ${String(r.sipUrl ?? '不可用（SIP 端口不可用，见启动输出）')}`,
        ),
        videoUse: f('用途', () => '视频设备接入、推流与实时画面，GB28181 设备注册、心跳与通道目录'),
        edge: f('状态', () => '边缘实例以网关设备身份经 MQTT 接入，配置按版本下发'),
        edgeUse: f('用途', () => '驱动管理、边缘实例的子设备分配与部署记录'),
        cluster: f('状态', (r) => {
            const n = Array.isArray(r.nodes) ? r.nodes.length : 0;
            return r.cluster ? `已开启（REDIS_URL），${n} 个进程在运行` : '未开启：单实例运行';
        }),
        clusterUse: f('用途', () => '多个平台进程共用一个 PostgreSQL 与 Redis，设备可连接任一进程'),
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/vaServices',
            title: '增值服务',
            record: { call: 'info', loading: '服务信息加载中…' },
            sections: [
                {
                    kind: 'notice',
                    severity: 'info',
                    text: '以下服务随平台一同运行，无需另行开通。各服务的接入地址与登录方式见“接入信息”，示例见“帮助中心 › 用户手册”。',
                },
                {
                    kind: 'fields',
                    title: '服务端订阅（AMQP 1.0）',
                    columns: 1,
                    fields: ['amqp', 'amqpUse'],
                    actions: [open('管理订阅', '/subscription')],
                },
                {
                    kind: 'fields',
                    title: '规则引擎与告警通知',
                    columns: 1,
                    fields: ['rules', 'rulesUse'],
                    actions: [open('场景联动', '/ruleEngine/Linkedge'), open('设备告警', '/monitor/deviceAlarm')],
                },
                {
                    kind: 'fields',
                    title: '视频接入',
                    columns: 1,
                    fields: ['video', 'videoUse'],
                    actions: [open('视频设备', '/videoList')],
                },
                {
                    kind: 'fields',
                    title: '边缘计算',
                    columns: 1,
                    fields: ['edge', 'edgeUse'],
                    actions: [open('边缘实例', '/edge/instance')],
                },
                { kind: 'fields', title: '多实例集群', columns: 1, fields: ['cluster', 'clusterUse'] },
                { kind: 'list', list: { ...memberList('nodes'), title: '集群成员' } },
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
