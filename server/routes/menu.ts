import { Hono } from 'hono';
import type { AppEnv } from '../deps';
import { CompressedAnswer, jsonAnswer } from '../http/compress';
import { MENU, SYSTEM_SECTION, type MenuNode } from '../../schemas/menu';

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

export function menuRoutes() {
    const app = new Hono<AppEnv>();
    // The same for every user of one role: the answer and its gzipped bytes are made once per grant, not per request.
    const answers = new Map<string, CompressedAnswer>();
    app.get('/', (c) => {
        const user = c.get('user');
        const key = user.admin ? '*' : JSON.stringify(user.menus);
        let answer = answers.get(key);
        if (!answer) {
            answer = new CompressedAnswer(JSON.stringify({ code: 200, msg: 'success', data: { menu: menuFor(user) } }));
            if (answers.size > 100) answers.clear();
            answers.set(key, answer);
        }
        return jsonAnswer(c, answer);
    });
    return app;
}
