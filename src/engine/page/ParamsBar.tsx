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
    const onChange = useCallback(
        (source: string, value: string) => {
            const spec = params.find((p) => p.source === source);
            const end = params.find((p) => p.to === source);
            setSearch((current) => {
                const next = new URLSearchParams(current);
                const name = spec?.param ?? end?.toParam ?? source;
                if (value === '' || value === undefined) next.delete(name);
                else next.set(name, value);
                for (const reset of spec?.resets ?? []) next.delete(reset);
                return next;
            });
        },
        [params, setSearch],
    );
    return (
        <Card variant="outlined">
            <CardContent sx={{ py: 1.5, '&:last-child': { pb: 1.5 } }}>
                <Filters filters={params} values={values} onChange={onChange} scope={scope} />
            </CardContent>
        </Card>
    );
}
