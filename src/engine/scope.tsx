import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import type { Row, Scope } from './vocabulary';

const ScopeContext = createContext<Partial<Scope> | undefined>(undefined);

/**
 * What the screen knows at this point (the page's record and loaded data, a row, a selection): actions, lists
 * and sections below read it through useScope(). Nested providers add to the outer scope.
 */
export function ScopeProvider({ value, children }: { value: Partial<Scope>; children: ReactNode }) {
    const outer = useContext(ScopeContext);
    const merged = useMemo(() => ({ ...outer, ...value }), [outer, value]);
    return <ScopeContext.Provider value={merged}>{children}</ScopeContext.Provider>;
}

/** The scope with the route's params and query filled in; `record` defaults to {}. */
export function useScope(overrides?: { record?: Row; selected?: Row[] }): Scope {
    const given = useContext(ScopeContext);
    const params = useParams();
    const [search] = useSearchParams();
    const query = useMemo(() => Object.fromEntries(search.entries()), [search]);
    return useMemo(
        () => ({
            record: {},
            ...given,
            route: { ...(params as Record<string, string>), ...given?.route },
            query,
            ...overrides,
        }),
        // overrides is a fresh object per render from callers; its parts are the real dependencies.
        // eslint-disable-next-line react-hooks/exhaustive-deps
        [given, params, query, overrides?.record, overrides?.selected],
    );
}
