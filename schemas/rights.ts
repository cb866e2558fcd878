/**
 * Rights: what a role may do, `<family>.<action>` (docs/roles.md). The server reads each operation's right from
 * openapi.yaml (`x-right`) and refuses a caller whose role lacks it; the console hides an action whose `right` the
 * signed-in user lacks. A family or action another feature needs is one more entry here.
 */
export const RIGHT_ACTIONS = {
    create: '新增',
    edit: '编辑',
    delete: '删除',
    bind: '绑定',
    push: '推流',
    deploy: '部署',
    downlink: '下发指令',
} as const;

export type RightAction = keyof typeof RIGHT_ACTIONS;

export interface RightFamily {
    id: string;
    name: string;
    actions: RightAction[];
}

export const RIGHT_FAMILIES: RightFamily[] = [
    { id: 'project', name: '项目', actions: ['create', 'edit', 'delete', 'bind'] },
    { id: 'product', name: '产品', actions: ['create', 'edit', 'delete'] },
    { id: 'device', name: '设备', actions: ['create', 'edit', 'delete', 'bind', 'downlink'] },
    { id: 'group', name: '分组', actions: ['create', 'edit', 'delete', 'bind'] },
    { id: 'video', name: '视频设备', actions: ['create', 'edit', 'delete', 'push'] },
    { id: 'subscription', name: '服务端订阅', actions: ['create', 'edit', 'delete'] },
    { id: 'rule', name: '规则引擎', actions: ['create', 'edit', 'delete', 'deploy'] },
    { id: 'alert', name: '告警', actions: ['create', 'edit', 'delete'] },
    { id: 'app', name: '应用', actions: ['create', 'edit', 'delete', 'deploy'] },
    { id: 'edge', name: '边缘计算', actions: ['create', 'edit', 'delete', 'deploy'] },
    { id: 'simulation', name: '设备模拟', actions: ['create', 'edit', 'delete', 'downlink'] },
    { id: 'productLog', name: '产品更新日志', actions: ['create', 'delete'] },
    { id: 'ota', name: '固件升级', actions: ['create', 'deploy', 'edit', 'delete'] },
    { id: 'forward', name: '数据流转', actions: ['create', 'edit', 'delete', 'deploy'] },
];

/**
 * `admin`: only administrators, whatever the method (people, roles, security). A path whose write declares no
 * right is treated the same way.
 */
export const ADMIN_RIGHT = 'admin';

/**
 * `signedIn`: any signed-in user, whatever the method: a POST that only reads (GetThingModel, ListProperty) and the
 * user's own things (profile, password).
 */
export const SIGNED_IN_RIGHT = 'signedIn';

export const ALL_RIGHTS: string[] = RIGHT_FAMILIES.flatMap((f) => f.actions.map((a) => `${f.id}.${a}`));

export function isKnownRight(right: string): boolean {
    return right === ADMIN_RIGHT || right === SIGNED_IN_RIGHT || ALL_RIGHTS.includes(right);
}

/** 新增产品 for product.create: the words of the 403 message and of the role form. */
export function rightLabel(right: string): string {
    if (right === ADMIN_RIGHT) return '系统管理';
    const [family, action] = right.split('.');
    const f = RIGHT_FAMILIES.find((x) => x.id === family);
    const a = RIGHT_ACTIONS[action as RightAction];
    return f && a ? `${a}${f.name}` : right;
}

/** The 403 answer's message. */
export function forbiddenMessage(right: string): string {
    return `无权限：当前角色没有「${rightLabel(right)}」权限，请联系管理员`;
}

/** The three roles every platform starts with (ids fixed by migration 0015). */
export const ADMIN_ROLE_ID = 1;
export const OPERATOR_ROLE_ID = 2;
export const READONLY_ROLE_ID = 3;
