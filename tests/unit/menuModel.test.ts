import { describe, expect, it } from 'vitest';
import resources from '../../resources';
import { MENU } from '../../server/routes/menu';
import { allowedRoutes, buildMenu, entryActive, menuFilter, type MenuEntry } from '../../src/layout/menuModel';

/** The side menu comes from the definitions' `menu`; the platform's GET /api/menu says which entries show. */
const SECTIONS = [
    { label: '设备接入', order: 30 },
    { label: '规则引擎', order: 35 },
    { label: '监控运维', order: 40 },
    { label: '应用管理', order: 50 },
    { label: '帮助中心', order: 60 },
    { label: '边缘计算', order: 45 },
    { label: '系统管理', order: 90 },
];
const menu = buildMenu(resources, allowedRoutes(MENU), SECTIONS);

const leaves = (entries: MenuEntry[]): MenuEntry[] => entries.flatMap((e) => (e.children ? leaves(e.children) : [e]));
const lit = (pathname: string) =>
    leaves(menu)
        .filter((e) => entryActive(e, pathname, menu))
        .map((e) => e.label);

describe('menu from the definitions', () => {
    it('lays out the entries the platform allows, in their sections and order', () => {
        expect(menu.map((e) => e.label)).toEqual([
            '概览',
            '项目管理',
            '设备接入',
            '规则引擎',
            '产品更新日志',
            '监控运维',
            '统计报表',
            '边缘计算',
            '应用管理',
            '帮助中心',
            '接入信息',
            '增值服务',
            '系统管理',
        ]);
        const section = (label: string) => menu.find((e) => e.label === label)?.children?.map((e) => [e.label, e.to]);
        expect(section('设备接入')).toEqual([
            ['产品管理', '/product'],
            ['设备管理', '/deviceInstance'],
            ['设备与视频流', '/devices'],
            ['分组管理', '/groups'],
            ['视频设备', '/videoList'],
            ['服务端订阅', '/subscription'],
            ['视频统计', '/videoData'],
            ['固件升级', '/ota'],
        ]);
        expect(section('规则引擎')).toEqual([
            ['场景联动', '/ruleEngine/Linkedge'],
            ['规则日志', '/ruleEngine/RuleJournal'],
            ['规则列表', '/rule/list'],
            ['数据流转', '/forward/flow'],
            ['数据目的地', '/forward/destination'],
            ['死信', '/forward/deadLetter'],
        ]);
        expect(section('监控运维')?.map(([label]) => label)).toEqual([
            '实时监控',
            '在线调试',
            '设备日志',
            '设备模拟',
            '设备告警',
            '日志查询',
        ]);
        expect(section('边缘计算')).toEqual([
            ['边缘实例', '/edge/instance'],
            ['驱动管理', '/edge/driver'],
        ]);
        expect(section('应用管理')).toEqual([
            ['应用上架', '/appconfig'],
            ['应用管理', '/applymanage'],
        ]);
        expect(section('帮助中心')?.map(([, to]) => to)).toEqual([
            '/usermanual',
            '/datacollection',
            '/dataforwarding',
            '/bestpractice',
            '/commonproblem',
            '/customerservice',
        ]);
        expect(section('系统管理')?.map(([label]) => label)).toEqual(['人员管理', '角色管理', '安全管家']);
    });

    it('lights exactly one entry on every screen, detail pages included', () => {
        expect(lit('/deviceInstance')).toEqual(['设备管理']);
        expect(lit('/devices')).toEqual(['设备与视频流']);
        expect(lit('/devInstanceDetail/3/17/info')).toEqual(['设备管理']);
        expect(lit('/childDeviceDetail/3/18')).toEqual(['设备管理']);
        // A device's detail is device management's, though its path starts with /devices.
        expect(lit('/devices/pk1/dn1/info')).toEqual(['设备管理']);
        expect(lit('/devices/pk1/dn1')).toEqual(['设备管理']);
        expect(lit('/devInstanceDetail/3/17')).toEqual(['设备管理']);
        expect(lit('/deviceInstance/2')).toEqual(['设备管理']);
        expect(lit('/productDetail/view')).toEqual(['产品管理']);
        expect(lit('/programOverview/5')).toEqual(['项目管理']);
        expect(lit('/groupDetail/9')).toEqual(['分组管理']);
        expect(lit('/productLog')).toEqual(['产品更新日志']);
        expect(lit('/monitor/imitate')).toEqual(['设备模拟']);
        expect(lit('/subscription')).toEqual(['服务端订阅']);
        expect(lit('/consumerGroup/detail')).toEqual(['服务端订阅']);
        expect(lit('/usermanual')).toEqual(['用户手册']);
        expect(lit('/report')).toEqual(['统计报表']);
        expect(lit('/applymanage')).toEqual(['应用管理']);
        expect(lit('/platform')).toEqual(['接入信息']);
        expect(lit('/videoInfo/cam01')).toEqual(['视频设备']);
        expect(lit('/videoData')).toEqual(['视频统计']);
        expect(lit('/edge/instance/detail/3/driver')).toEqual(['边缘实例']);
        expect(lit('/edge/driver')).toEqual(['驱动管理']);
    });

    it('lights the most specific match only, and its section', () => {
        const entry = (label: string, to: string, related: string[] = []): MenuEntry => ({
            key: to,
            label,
            to,
            order: 0,
            related,
        });
        const section: MenuEntry = {
            key: 'section:s',
            label: 's',
            order: 0,
            related: [],
            children: [entry('A', '/a'), entry('AB', '/a/b'), entry('X', '/x', ['/a/:id/c'])],
        };
        const all = [section, entry('Z', '/z')];
        const on = (path: string) =>
            leaves(all)
                .filter((e) => entryActive(e, path, all))
                .map((e) => e.label);
        expect(on('/a')).toEqual(['A']);
        expect(on('/a/q')).toEqual(['A']);
        expect(on('/a/b/1')).toEqual(['AB']);
        expect(on('/a/7/c')).toEqual(['X']);
        expect(on('/ab')).toEqual([]);
        expect(entryActive(section, '/a/7/c', all)).toBe(true);
        expect(entryActive(all[1], '/a/7/c', all)).toBe(false);
        // Without the whole menu, every entry that matches is lit (the old rule).
        expect(
            leaves(all)
                .filter((e) => entryActive(e, '/a/b'))
                .map((e) => e.label),
        ).toEqual(['A', 'AB']);
    });

    it('hides what the platform does not list, and a section left empty', () => {
        const only = buildMenu(resources, new Set(['/introduce', '/productLog']), SECTIONS);
        expect(only.map((e) => e.label)).toEqual(['概览', '产品更新日志']);
    });
});

describe('the menu entry from the definition alone (GET /api/menu says only what a role may see)', () => {
    const workOrders = {
        name: 'workOrders',
        label: '维保工单',
        path: 'workOrder',
        fields: {},
        menu: { label: '维保工单', section: '设备接入', order: 9, right: 'workOrder' },
    };
    const all = [...resources, workOrders];
    const labelsIn = (entries: MenuEntry[], section: string) =>
        entries.find((e) => e.label === section)?.children?.map((e) => e.label) ?? [];

    it('shows an entry the server’s menu does not list, to a role with every right', () => {
        const built = buildMenu(all, menuFilter({ menu: MENU, access: { all: true } }), SECTIONS);
        expect(labelsIn(built, '设备接入')).toContain('维保工单');
        expect(labelsIn(built, '设备接入').at(-1)).toBe('维保工单');
        // The same answer without `access` (an older server): only the routes its tree lists.
        expect(labelsIn(buildMenu(all, menuFilter({ menu: MENU }), SECTIONS), '设备接入')).not.toContain('维保工单');
    });

    it('keys entries by their right: a role granted some sees those only; 系统管理 stays out for “every entry”', () => {
        const some = buildMenu(all, menuFilter({ access: { only: ['ota', 'workOrder'] } }), SECTIONS);
        expect(some.map((e) => e.label)).toEqual(['设备接入']);
        expect(labelsIn(some, '设备接入')).toEqual(['固件升级', '维保工单']);
        const none = buildMenu(all, menuFilter({ access: { only: ['product'] } }), SECTIONS);
        expect(labelsIn(none, '设备接入')).toEqual(['产品管理']);
        const most = buildMenu(
            all,
            menuFilter({
                access: { all: true, except: ['system', 'personnelManage', 'roleList', 'safetybutler'] },
            }),
            SECTIONS,
        );
        expect(most.map((e) => e.label)).not.toContain('系统管理');
        expect(labelsIn(most, '设备接入')).toContain('维保工单');
    });
});
