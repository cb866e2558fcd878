import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { CompressedAnswer, jsonAnswer } from '../http/compress';
import { MENU, SYSTEM_SECTION, menuIds, type MenuNode } from '../../schemas/menu';

export { MENU, SYSTEM_SECTION, menuIds, type MenuNode } from '../../schemas/menu';

/**
 * The menu a role sees: administrators everything; others the entries their role grants (null: every entry but
 * 系统管理, whose pages only administrators may use). A section stays while one of its entries does.
 */
export function menuFor(user: { admin: boolean; menus: string[] | null }): MenuNode {
    if (user.admin) return MENU;
    const granted = user.menus ? new Set(user.menus) : undefined;
    const keep = (node: MenuNode): MenuNode | undefined => {
        if (node.id === SYSTEM_SECTION) return undefined;
        if (node.children) {
            const children = node.children.map(keep).filter((n): n is MenuNode => !!n);
            if (children.length === 0 && !(granted?.has(node.id) && node.url !== '#')) return undefined;
            return { ...node, children };
        }
        return !granted || granted.has(node.id) ? node : undefined;
    };
    return { ...MENU, children: (MENU.children ?? []).map(keep).filter((n): n is MenuNode => !!n) };
}

/**
 * Which entries a role may see, keyed by the right (menu id) each definition's `menu` declares: the console builds
 * its menu from the definitions alone and asks only this. `all`: every entry, `except` those; `only`: just these.
 * A definition the server's MENU does not list (an integrator's new entity) is seen by administrators and by roles
 * granted every entry, and by a role whose list names its right.
 */
export type MenuAccess = { all: true; except?: string[] } | { all?: false; only: string[] };

export function menuAccessFor(user: { admin: boolean; menus: string[] | null }): MenuAccess {
    if (user.admin) return { all: true };
    if (!user.menus) {
        const system = MENU.children?.find((n) => n.id === SYSTEM_SECTION);
        return { all: true, except: [SYSTEM_SECTION, ...menuIds(system)] };
    }
    return { only: [...user.menus] };
}

export function menuRoutes() {
    const app = new Hono<AppEnv>();
    // The same for every user of one role: the answer and its gzipped bytes are made once per grant, not per request.
    const answers = new Map<string, CompressedAnswer>();
    app.get('/', (c) => {
        const user = c.get('user');
        const key = user.admin ? '*' : JSON.stringify(user.menus);
        let answer = answers.get(key);
        if (!answer) {
            answer = new CompressedAnswer(
                JSON.stringify({
                    code: 200,
                    msg: 'success',
                    data: { menu: menuFor(user), access: menuAccessFor(user) },
                }),
            );
            if (answers.size > 100) answers.clear();
            answers.set(key, answer);
        }
        return jsonAnswer(c, answer);
    });
    return app;
}
