/**
 * CONTRACT STUB (helper "lists" replaces the bodies, keeps the exports and props).
 * A list over any call (src/engine/vocabulary.ts ListSpec): top-level, nested in a tab, several on a page.
 */
import type { ReactNode } from 'react';
import type { ListSpec } from '../vocabulary';

export interface DataListProps {
    spec: ListSpec;
    /** Resource whose fields name the columns and whose calls the list runs (default: the definition in context). */
    resource?: string;
}

export function DataList(_props: DataListProps): ReactNode {
    return null;
}
