import { useCallback, useMemo } from 'react';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import type { PageSpec, Scope, TabSpec } from '../vocabulary';

/**
 * The tab the URL names, and how to choose another: a path segment after the page's route (`/productDetail/view`),
 * or a query param (`?tab=events`; with `indexBase: 1` the param is the tab's 1-based position among all tabs,
 * as older links such as `?checkIdx=2` say). A tab that does not apply (its `when` fails) falls back.
 */
export function useTab(
    page: PageSpec,
    scope: Scope,
): { tabs: TabSpec[]; current?: TabSpec; choose: (key: string) => void } {
    const all = useMemo(() => page.tabs ?? [], [page.tabs]);
    const tabs = all.filter((t) => !t.when || t.when(scope));
    const params = useParams();
    const [search, setSearch] = useSearchParams();
    const location = useLocation();
    const navigate = useNavigate();
    const byQuery = page.tabParam?.query;
    const base = page.tabParam?.indexBase;

    let named: string | undefined;
    if (byQuery) {
        const raw = search.get(byQuery) ?? undefined;
        named = base === 1 && raw !== undefined ? all[Number(raw) - 1]?.key : raw;
    } else {
        named = params['*']?.split('/')[0] || undefined;
    }
    const given = page.tabParam?.fallback;
    const fallback = typeof given === 'function' ? given(scope) : given;
    const current =
        tabs.find((t) => t.key === named) ??
        tabs.find((t) => t.key === fallback) ??
        (tabs.length ? tabs[0] : undefined);

    const choose = useCallback(
        (key: string) => {
            if (byQuery) {
                const value = base === 1 ? String(all.findIndex((t) => t.key === key) + 1) : key;
                const bare = page.tabParam?.omitFallback && key === fallback;
                setSearch(
                    (now) => {
                        const next = new URLSearchParams(now);
                        if (bare) next.delete(byQuery);
                        else next.set(byQuery, value);
                        return next;
                    },
                    { replace: false },
                );
                return;
            }
            const rest = params['*'] ?? '';
            const prefix = location.pathname.slice(0, location.pathname.length - rest.length).replace(/\/$/, '');
            // Segments after the tab stay (a record id in the path: /productDetail/7 → /productDetail/topic/7).
            const [head, ...tail] = rest.split('/').filter(Boolean);
            const kept = head && !all.some((t) => t.key === head) ? [head, ...tail] : tail;
            navigate(`${prefix}/${[key, ...kept].join('/')}${location.search}`);
        },
        [byQuery, base, all, setSearch, params, location, navigate, page.tabParam, fallback],
    );
    return { tabs, current, choose };
}
