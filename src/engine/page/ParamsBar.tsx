import { useCallback } from 'react';
import { Card, CardContent } from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import { Filters } from '../list/Filters';
import type { FilterSpec, Scope } from '../vocabulary';

/** A page's params (PageSpec.params): selects at its top whose values live in the URL query. */
export function ParamsBar({ params, scope }: { params: FilterSpec[]; scope: Scope }) {
    const [search, setSearch] = useSearchParams();
    const values = Object.fromEntries([
        ...params.map((p) => [p.source, search.get(p.param ?? p.source) ?? p.defaultValue ?? '']),
        // A date range's end lives under its own name (`to`).
        ...params.filter((p) => p.to).map((p) => [p.to!, search.get(p.toParam ?? p.to!) ?? '']),
    ]);
    // Several at once (a range's two ends) in one URL change: two changes in a row would each start from the same URL.
    const onChangeMany = useCallback(
        (many: Record<string, string>) => {
            setSearch((current) => {
                const next = new URLSearchParams(current);
                for (const [source, value] of Object.entries(many)) {
                    const spec = params.find((p) => p.source === source);
                    const end = params.find((p) => p.to === source);
                    const name = spec?.param ?? end?.toParam ?? source;
                    if (value === '' || value === undefined) next.delete(name);
                    else next.set(name, value);
                    for (const reset of spec?.resets ?? []) next.delete(reset);
                }
                return next;
            });
        },
        [params, setSearch],
    );
    const onChange = useCallback((source: string, value: string) => onChangeMany({ [source]: value }), [onChangeMany]);
    return (
        <Card variant="outlined">
            <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>
                <Filters
                    filters={params}
                    values={values}
                    onChange={onChange}
                    onChangeMany={onChangeMany}
                    scope={scope}
                />
            </CardContent>
        </Card>
    );
}
