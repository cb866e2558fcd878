import type { ApiResource } from '../../dataProvider/types';

/**
 * Calls of the shell itself, through the data provider like every other call (envelope, 401 → sign-on page).
 * Not a resource: it has no screens of its own.
 */
export const SHELL_API: ApiResource = {
    name: 'shell',
    api: {
        success: 'code200',
        custom: {
            menu: { get: '/api/menu', read: 'data' },
        },
    },
};

/** GET /api/menu → data: the role's menu tree and `access`, the rights (menu ids) it may see. */
export interface MenuAnswer {
    menu?: MenuNode;
    access?: { all?: boolean; except?: string[]; only?: string[] };
}

/** GET /api/menu → data.menu: groups have children; a leaf goes to its url, or to its id when the url is '#'. */
export interface MenuNode {
    id: string;
    name: string;
    url: string;
    icon?: string;
    children?: MenuNode[];
}

export function menuTarget(node: MenuNode): string {
    const target = node.url && node.url !== '#' ? node.url : node.id;
    return target.startsWith('/') || /^https?:/.test(target) ? target : `/${target}`;
}
