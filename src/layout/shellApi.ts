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
            menu: { get: '/api/menu', read: 'data.menu' },
        },
    },
};

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

export const isGroup = (node: MenuNode) => (node.children?.length ?? 0) > 0;

/** Further route prefixes that belong to a leaf's page (a resource's own routes, e.g. /product → /productDetail). */
export type RelatedRoutes = Record<string, string[]>;

const under = (pathname: string, base: string) => pathname === base || pathname.startsWith(`${base}/`);

/** The current route belongs to a leaf when it is the leaf's path, below it, or one of its related routes. */
export function isActive(node: MenuNode, pathname: string, related: RelatedRoutes = {}): boolean {
    if (isGroup(node)) return node.children!.some((c) => isActive(c, pathname, related));
    const target = menuTarget(node).split('?')[0];
    return under(pathname, target) || (related[target] ?? []).some((base) => under(pathname, base));
}
