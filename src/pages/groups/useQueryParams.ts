import { useCallback } from 'react';
import { useSearchParams } from 'react-router-dom';

/** Reads and sets a screen's own query params (tab, page, filters), leaving the others as they are. */
export function useQueryParams() {
    const [search, setSearch] = useSearchParams();
    const set = useCallback(
        (changes: Record<string, string | number | null | undefined>) =>
            setSearch((current) => {
                const next = new URLSearchParams(current);
                for (const [key, value] of Object.entries(changes)) {
                    if (value === null || value === undefined || value === '') next.delete(key);
                    else next.set(key, String(value));
                }
                return next;
            }),
        [setSearch],
    );
    const int = (name: string, fallback: number) => {
        const n = Number(search.get(name));
        return Number.isInteger(n) && n > 0 ? n : fallback;
    };
    return { search, set, int };
}
