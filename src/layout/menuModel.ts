import type { ComponentType } from 'react';
import { resourcePath } from '../engine/context';
import type { MenuSpec, ResourceDefinition } from '../engine/types';
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
    allowed: Set<string>,
    sections: SectionSpec[],
): MenuEntry[] {
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
            if (!allowed.has(to.split('?')[0])) continue;
            const entry: MenuEntry = {
                key: to,
                label: spec.label ?? d.label,
                to,
                icon: spec.icon ?? d.icon,
                order: spec.order ?? 100,
                related: spec.related ?? [],
            };
            const section = spec.section ? bySection.get(spec.section) : undefined;
            if (spec.section && !section) {
                const made: MenuEntry = {
                    key: `section:${spec.section}`,
                    label: spec.section,
                    order: entry.order,
                    related: [],
                    children: [entry],
                };
                bySection.set(spec.section, made);
            } else if (section) section.children!.push(entry);
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

const under = (pathname: string, base: string) =>
    pathname === base || pathname.startsWith(base.endsWith('/') ? base : `${base}/`);

/** An entry is lit by its own route (and below) or one of its related routes; a section by any of its entries. */
export function entryActive(entry: MenuEntry, pathname: string): boolean {
    if (entry.children) return entry.children.some((c) => entryActive(c, pathname));
    const target = entry.to!.split('?')[0];
    return under(pathname, target) || entry.related.some((base) => under(pathname, base));
}
