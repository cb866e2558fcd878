import type { ComponentType } from 'react';
import { resourcePath } from '../engine/context';
import type { MenuSpec, ResourceDefinition } from '../engine/types';
import { MENU } from '../../schemas/menu';
import { menuTarget, type MenuNode } from './shellApi';

/** One entry of the side menu: a leaf from a definition's `menu`, or a section holding leaves. */
export interface MenuEntry {
    key: string;
    label: string;
    to?: string;
    icon?: ComponentType;
    order: number;
    related: string[];
    children?: MenuEntry[];
}

/** Sections of the menu: where they sit and their icon; their entries come from the definitions. */
export interface SectionSpec {
    label: string;
    order: number;
    icon?: ComponentType;
}

const specsOf = (d: ResourceDefinition): MenuSpec[] => (!d.menu ? [] : Array.isArray(d.menu) ? d.menu : [d.menu]);

/** GET /api/menu's `access`: which rights (menu ids) this role has: `all` but `except`, or `only` these. */
export interface MenuAccess {
    all?: boolean;
    except?: string[];
    only?: string[];
}

/** What decides whether an entry shows: its right, its route, and its section's id. */
export interface EntryKey {
    right: string;
    to: string;
    section?: string;
}

/** The id schemas/menu.ts gives a route or a section's name (the rights the role form grants by). */
function catalogueIds(catalogue: MenuNode | undefined) {
    const byRoute = new Map<string, string>();
    const byName = new Map<string, string>();
    const walk = (n: MenuNode) => {
        if (n.children?.length) {
            byName.set(n.name, n.id);
            n.children.forEach(walk);
        } else byRoute.set(menuTarget(n).split('?')[0], n.id);
    };
    catalogue?.children?.forEach(walk);
    return { byRoute, byName };
}

/**
 * Who sees an entry, from GET /api/menu: with `access`, the entry's right (and its section's id) against the
 * role's rights, so a definition's entry shows whether or not the server's menu lists it; without it (an older
 * server), the routes its menu tree lists.
 */
export function menuFilter(answer: { menu?: MenuNode; access?: MenuAccess } | undefined): (key: EntryKey) => boolean {
    const access = answer?.access;
    if (!access) {
        const routes = allowedRoutes(answer?.menu);
        return (key) => routes.has(key.to);
    }
    const except = new Set(access.except ?? []);
    const only = new Set(access.only ?? []);
    return (key) => {
        if (except.has(key.right) || (key.section && except.has(key.section))) return false;
        return access.all ? true : only.has(key.right);
    };
}

/** Every route of the platform's menu answer (its leaves), which says what this user may see. */
export function allowedRoutes(node: MenuNode | undefined): Set<string> {
    const out = new Set<string>();
    const walk = (n: MenuNode) => {
        if (n.children?.length) n.children.forEach(walk);
        else out.add(menuTarget(n).split('?')[0]);
    };
    if (node) walk(node);
    return out;
}

/**
 * The menu from the definitions: each `menu` entry where its `section` says, in `order`; an entry shows only
 * when the platform's menu answer lists its route. Sections without a visible entry disappear.
 */
export function buildMenu(
    definitions: ResourceDefinition[],
    allowed: Set<string> | ((key: EntryKey) => boolean),
    sections: SectionSpec[],
    /** The platform's menu catalogue (schemas/menu.ts): the default right of an entry is its route's id there. */
    catalogue: MenuNode = MENU,
): MenuEntry[] {
    const ids = catalogueIds(catalogue);
    const sees =
        typeof allowed === 'function' ? allowed : (key: EntryKey) => allowed.has(key.to) || allowed.has(key.right);
    const top: MenuEntry[] = [];
    const bySection = new Map<string, MenuEntry>();
    for (const s of sections) {
        bySection.set(s.label, {
            key: `section:${s.label}`,
            label: s.label,
            icon: s.icon,
            order: s.order,
            related: [],
            children: [],
        });
    }
    for (const d of definitions) {
        for (const spec of specsOf(d)) {
            const to = spec.to ?? `/${resourcePath(d)}`;
            const route = to.split('?')[0];
            const right = rightOf(d, spec, ids);
            const section = spec.section ? (ids.byName.get(spec.section) ?? spec.section) : undefined;
            if (!sees({ right, to: route, section })) continue;
            const entry: MenuEntry = {
                key: to,
                label: spec.label ?? d.label,
                to,
                icon: spec.icon ?? d.icon,
                order: spec.order ?? 100,
                related: spec.related ?? [],
            };
            const holder = spec.section ? bySection.get(spec.section) : undefined;
            if (spec.section && !holder) {
                const made: MenuEntry = {
                    key: `section:${spec.section}`,
                    label: spec.section,
                    order: entry.order,
                    related: [],
                    children: [entry],
                };
                bySection.set(spec.section, made);
            } else if (holder) holder.children!.push(entry);
            else top.push(entry);
        }
    }
    for (const section of bySection.values()) {
        if (!section.children?.length) continue;
        section.children.sort((a, b) => a.order - b.order);
        top.push(section);
    }
    return top.sort((a, b) => a.order - b.order);
}

const segments = (path: string) => path.split('/').filter(Boolean);

/**
 * How specifically `base` covers `pathname` (the path or below it): its number of segments, -1 when it does not.
 * A `:param` segment of a related route matches any one segment ('/devices/:productKey/:deviceName').
 */
function coverage(pathname: string, base: string): number {
    const want = segments(base);
    const have = segments(pathname);
    if (want.length > have.length) return -1;
    return want.every((part, i) => part.startsWith(':') || part === have[i]) ? want.length : -1;
}

/** How specifically a leaf covers the path, by its own route or a related one; -1 when not at all. */
function leafCoverage(entry: MenuEntry, pathname: string): number {
    const bases = [entry.to!.split('?')[0], ...entry.related];
    return Math.max(...bases.map((base) => coverage(pathname, base)));
}

const leavesOf = (entries: MenuEntry[]): MenuEntry[] =>
    entries.flatMap((e) => (e.children ? leavesOf(e.children) : [e]));

/** The one leaf the path lights: the most specific match wins (ties: the first in menu order). */
export function activeLeaf(menu: MenuEntry[], pathname: string): MenuEntry | undefined {
    let best: MenuEntry | undefined;
    let score = -1;
    for (const leaf of leavesOf(menu)) {
        const s = leafCoverage(leaf, pathname);
        if (s > score) {
            best = leaf;
            score = s;
        }
    }
    return best;
}

/**
 * An entry is lit by its own route (and below) or one of its related routes; a section by any of its entries.
 * Given the whole `menu`, only the most specific match is lit (/devices/pk/dn lights 设备管理, not 设备与视频流).
 */
export function entryActive(entry: MenuEntry, pathname: string, menu?: MenuEntry[]): boolean {
    if (menu) {
        const lit = activeLeaf(menu, pathname);
        return !!lit && leavesOf([entry]).includes(lit);
    }
    if (entry.children) return entry.children.some((c) => entryActive(c, pathname));
    return leafCoverage(entry, pathname) >= 0;
}

/** A right (menu id) a definition's `menu` declares, with its entry's label and section: what the role form offers. */
export interface DeclaredRight {
    right: string;
    label: string;
    /** The section's label ('设备接入'); none for a top-level entry. */
    section?: string;
    /** The section's id in schemas/menu.ts when it has one ('system' for 系统管理). */
    sectionId?: string;
}

/**
 * Every right the definitions' `menu` entries declare (the same defaults buildMenu uses: `menu.right`, else the id
 * schemas/menu.ts gives the entry's route, else the resource's name), once each, in definition order.
 */
export function declaredRights(definitions: ResourceDefinition[], catalogue: MenuNode = MENU): DeclaredRight[] {
    const ids = catalogueIds(catalogue);
    const seen = new Set<string>();
    const out: DeclaredRight[] = [];
    for (const d of definitions) {
        for (const spec of specsOf(d)) {
            const right = rightOf(d, spec, ids);
            if (seen.has(right)) continue;
            seen.add(right);
            out.push({
                right,
                label: spec.label ?? d.label,
                section: spec.section,
                sectionId: spec.section ? ids.byName.get(spec.section) : undefined,
            });
        }
    }
    return out;
}

/** The right an entry is granted by: `menu.right`, else the id schemas/menu.ts gives its route, else the resource's name. */
function rightOf(
    d: ResourceDefinition,
    spec: ReturnType<typeof specsOf>[number],
    ids: ReturnType<typeof catalogueIds>,
) {
    return spec.right ?? ids.byRoute.get((spec.to ?? `/${resourcePath(d)}`).split('?')[0]) ?? d.name;
}
