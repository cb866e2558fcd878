/**
 * The console's side menu as data, shared by the server (GET /api/menu answers it per role) and the console (the role
 * form offers its entries): one list, so a new page is one node here and nowhere else.
 */
export interface MenuNode {
    id: string;
    name: string;
    /** The route of a leaf; '#' for a group (the console then uses the id). */
    url: string;
    /** An @mui/icons-material export name. */
    icon?: string;
    children?: MenuNode[];
}

/** The 系统管理 section: people, roles and security, for administrators only. */
export const SYSTEM_SECTION = 'system';

/** Only pages the console implements are listed; a later page is one more node here. */
export const MENU: MenuNode = {
    id: 'accessplatform',
    name: '物联网设备接入管理平台',
    url: '#',
    children: [
        { id: 'introduce', name: '概览', url: '/introduce', icon: 'Dashboard' },
        { id: 'programList', name: '项目管理', url: '/programList', icon: 'Workspaces' },
        {
            id: 'deviceAccess',
            name: '设备接入',
            url: '#',
            icon: 'Hub',
            children: [
                { id: 'product', name: '产品管理', url: '/product', icon: 'Inventory2' },
                { id: 'deviceInstance', name: '设备管理', url: '/deviceInstance', icon: 'DevicesOther' },
                { id: 'devices', name: '设备与视频流', url: '/devices', icon: 'VideoCameraBack' },
                { id: 'groups', name: '分组管理', url: '/groups', icon: 'AccountTree' },
                { id: 'videoList', name: '视频设备', url: '/videoList', icon: 'Videocam' },
                { id: 'videoData', name: '视频统计', url: '/videoData', icon: 'Insights' },
                { id: 'subscription', name: '服务端订阅', url: '/subscription', icon: 'Send' },
                { id: 'ota', name: '固件升级', url: '/ota', icon: 'SystemUpdateAlt' },
            ],
        },
        {
            id: 'ruleEngine',
            name: '规则引擎',
            url: '#',
            icon: 'AccountTree',
            children: [
                { id: 'Linkedge', name: '场景联动', url: '/ruleEngine/Linkedge', icon: 'AccountTree' },
                { id: 'RuleJournal', name: '规则日志', url: '/ruleEngine/RuleJournal', icon: 'ReceiptLong' },
                { id: 'ruleList', name: '规则列表', url: '/rule/list', icon: 'ListAlt' },
                { id: 'forwardFlow', name: '数据流转', url: '/forward/flow', icon: 'AltRoute' },
                { id: 'forwardDestination', name: '数据目的地', url: '/forward/destination', icon: 'Outbox' },
                { id: 'forwardDeadLetter', name: '死信', url: '/forward/deadLetter', icon: 'Report' },
            ],
        },
        {
            id: 'monitor',
            name: '监控运维',
            url: '#',
            icon: 'MonitorHeart',
            children: [
                { id: 'real', name: '实时监控', url: '/monitor/real', icon: 'Speed' },
                { id: 'debug', name: '在线调试', url: '/monitor/debug', icon: 'BugReport' },
                { id: 'deviceLog', name: '设备日志', url: '/monitor/deviceLog', icon: 'ReceiptLong' },
                { id: 'imitate', name: '设备模拟', url: '/monitor/imitate', icon: 'SmartToy' },
                { id: 'deviceAlarm', name: '设备告警', url: '/monitor/deviceAlarm', icon: 'NotificationsActive' },
                { id: 'log', name: '日志查询', url: '/log', icon: 'ManageSearch' },
            ],
        },
        {
            id: 'edge',
            name: '边缘计算',
            url: '#',
            icon: 'Router',
            children: [
                { id: 'edgeInstance', name: '边缘实例', url: '/edge/instance', icon: 'Memory' },
                { id: 'edgeDriver', name: '驱动管理', url: '/edge/driver', icon: 'Extension' },
            ],
        },
        { id: 'productLog', name: '产品更新日志', url: '/productLog', icon: 'History' },
        { id: 'report', name: '统计报表', url: '/report', icon: 'Assessment' },
        {
            id: 'apps',
            name: '应用管理',
            url: '#',
            icon: 'Apps',
            children: [
                { id: 'appconfig', name: '应用上架', url: '/appconfig', icon: 'Storefront' },
                { id: 'applymanage', name: '应用管理', url: '/applymanage', icon: 'AppSettingsAlt' },
            ],
        },
        { id: 'platform', name: '接入信息', url: '/platform', icon: 'SettingsEthernet' },
        { id: 'vaServices', name: '增值服务', url: '/vaServices', icon: 'Extension' },
        {
            id: 'help',
            name: '帮助中心',
            url: '#',
            icon: 'HelpOutline',
            children: [
                { id: 'usermanual', name: '用户手册', url: '/usermanual', icon: 'MenuBook' },
                { id: 'datacollection', name: '数据采集', url: '/datacollection', icon: 'Sensors' },
                { id: 'dataforwarding', name: '数据流转', url: '/dataforwarding', icon: 'AltRoute' },
                { id: 'bestpractice', name: '最佳实践', url: '/bestpractice', icon: 'TipsAndUpdates' },
                { id: 'commonproblem', name: '常见问题', url: '/commonproblem', icon: 'Quiz' },
                { id: 'customerservice', name: '客户服务', url: '/customerservice', icon: 'SupportAgent' },
            ],
        },
        {
            id: SYSTEM_SECTION,
            name: '系统管理',
            url: '#',
            icon: 'AdminPanelSettings',
            children: [
                { id: 'personnelManage', name: '人员管理', url: '/personnelManage', icon: 'People' },
                { id: 'roleList', name: '角色管理', url: '/roleList', icon: 'AdminPanelSettings' },
                { id: 'safetybutler', name: '安全管家', url: '/safetybutler', icon: 'Security' },
            ],
        },
    ],
};

/** Every menu id but the root's (what a role may be granted; docs/roles.md). */
export function menuIds(node: MenuNode = MENU): string[] {
    return (node.children ?? []).flatMap((child) => [child.id, ...menuIds(child)]);
}
