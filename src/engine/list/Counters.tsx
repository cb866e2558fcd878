import { Box, Link as MuiLink, Skeleton, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { useCall } from '../calls';
import type { CallRef, CounterSpec, Scope } from '../vocabulary';

/** A dotted path into a value ('data.total', 'onlineCount'). */
export function readAt(value: unknown, path: string): unknown {
    let at = value;
    for (const key of path.split('.')) {
        if (at === null || typeof at !== 'object') return undefined;
        at = (at as Record<string, unknown>)[key];
    }
    return at;
}

interface CountersProps {
    call?: CallRef;
    items: CounterSpec[];
    scope: Scope;
}

/** Figures in a row (设备总数 / 在线): from a call's answer, or from the scope's record and loaded data. */
export function Counters({ call, items, scope }: CountersProps) {
    const { data, isPending, isError } = useCall<unknown>(call, scope);
    const source = call ? data : { ...scope.data, ...scope.record };
    return (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: { xs: 2, md: 4 } }} role="group" aria-label="统计">
            {items.map((item) => {
                const value = readAt(source, item.value);
                const text = value === undefined || value === null || value === '' ? '-' : String(value);
                const figure =
                    call && isPending && !isError ? (
                        <Skeleton width={48} />
                    ) : (
                        <Typography component="span" variant="h6" sx={{ color: item.color, fontWeight: 600 }}>
                            {text}
                        </Typography>
                    );
                return (
                    <Box key={item.label} sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
                        <Typography component="span" variant="body2" color="text.secondary">
                            {item.label}
                        </Typography>
                        {item.to ? (
                            <MuiLink component={Link} to={item.to(scope)} underline="hover">
                                {figure}
                            </MuiLink>
                        ) : (
                            figure
                        )}
                    </Box>
                );
            })}
        </Box>
    );
}
