import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { CompressedAnswer, jsonAnswer } from '../domain/deviceMapCache';

export interface MenuNode {
    id: string;
    name: string;
    /** The route of a leaf; '#' for a group (the console then uses the id). */
    url: string;
    /** An @mui/icons-material export name. */
    icon?: string;
    children?: MenuNode[];
}

/**
 * The console's side menu, served by GET /api/menu. Only pages the console implements are listed;
 * a later page is one more node here.
 */
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
    ],
};

export function menuRoutes() {
    const app = new Hono<AppEnv>();
    // The same for every request: the answer and its gzipped bytes are made once, not per request.
    let answer: CompressedAnswer | undefined;
    app.get('/', (c) => {
        answer ??= new CompressedAnswer(JSON.stringify({ code: 200, msg: 'success', data: { menu: MENU } }));
        return jsonAnswer(c, answer);
    });
    return app;
}
