import { useEffect, useState } from 'react';
import { runCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import type { CallRef, FieldDefinition, Row, Scope } from '../types';
import { failureText, rowsOf } from './fieldView';

export type TreeSpec = NonNullable<FieldDefinition['tree']>;
/** A node's children: loaded rows, still loading, or the failure of their load. */
export type Branch = Row[] | 'loading' | Error;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tree's call asked for the children of `parent`: the definition's own params plus the parent's value. */
export function childrenCall(spec: TreeSpec, parent: unknown): CallRef {
    return { ...spec.source, params: (scope) => ({ ...spec.source.params?.(scope), [spec.parentParam]: parent }) };
}

const without = <K, V>(map: Map<K, V>, key: K) => {
    const copy = new Map(map);
    copy.delete(key);
    return copy;
};

export interface TreeBranches {
    expanded: Set<string>;
    branches: Map<string, Branch>;
    toggle: (id: string | number) => Promise<void>;
}

/**
 * Which nodes are open and their loaded children. Expanding a node loads its children once (after `delay` ms);
 * collapsing a node whose load failed forgets the failure, so the next expand tries again. Another `rootKey`
 * (other params: another project) is another tree.
 */
export function useTreeBranches(
    spec: TreeSpec,
    scope: Scope,
    dataProvider: PlatformDataProvider,
    definitionName: string | undefined,
    rootKey: string,
): TreeBranches {
    const [expanded, setExpanded] = useState<Set<string>>(new Set());
    const [branches, setBranches] = useState<Map<string, Branch>>(new Map());

    useEffect(() => {
        setExpanded(new Set());
        setBranches(new Map());
    }, [rootKey]);

    const toggle = async (id: string | number) => {
        const key = String(id);
        const next = new Set(expanded);
        if (next.has(key)) {
            next.delete(key);
            setExpanded(next);
            if (branches.get(key) instanceof Error) setBranches((m) => without(m, key));
            return;
        }
        next.add(key);
        setExpanded(next);
        if (branches.has(key)) return;
        setBranches((m) => new Map(m).set(key, 'loading'));
        let loaded: Branch;
        try {
            if (spec.delay) await wait(spec.delay);
            loaded = rowsOf(await runCall(dataProvider, childrenCall(spec, id), scope, definitionName));
        } catch (err) {
            loaded = new Error(failureText(err));
        }
        setBranches((m) => new Map(m).set(key, loaded));
    };

    return { expanded, branches, toggle };
}
