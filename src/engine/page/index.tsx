/**
 * CONTRACT STUB (helper "pages" replaces the bodies, keeps the exports and props).
 * A declared screen (PageSpec): record from the route, header, tabs in the URL, sections.
 */
import type { ReactNode } from 'react';
import type { PageSpec, Section } from '../vocabulary';

export function PageView(_props: { page: PageSpec }): ReactNode {
    return null;
}

/** A column of sections (a tab's body, a page without tabs). */
export function Sections(_props: { sections: Section[] }): ReactNode {
    return null;
}
