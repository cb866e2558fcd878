import {
    Alert,
    Box,
    Button,
    Card,
    CardActionArea,
    CardContent,
    Link as MuiLink,
    Skeleton,
    Typography,
} from '@mui/material';
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
    /** What the figures are, for the failure notice and assistive technology (default 统计). */
    title?: string;
}

const blank = (value: unknown) => value === undefined || value === null || value === '';
const shown = (value: unknown) => (typeof value === 'number' ? value.toLocaleString('zh-CN') : String(value));

/** A figure as a card: its icon in its colour, the label, the number; the whole card links when `to` says. */
function CounterCard({
    item,
    value,
    pending,
    scope,
}: {
    item: CounterSpec;
    value: unknown;
    pending: boolean;
    scope: Scope;
}) {
    const Icon = item.icon!;
    const color = item.color ?? '#5470c6';
    const body = (
        <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2, py: 2, '&:last-child': { pb: 2 } }}>
            <Box
                sx={{
                    width: 44,
                    height: 44,
                    flex: 'none',
                    borderRadius: '50%',
                    display: 'grid',
                    placeItems: 'center',
                    bgcolor: `${color}1f`,
                    color,
                }}
            >
                <Icon />
            </Box>
            <Box sx={{ minWidth: 0 }}>
                <Typography variant="body2" color="text.secondary" noWrap>
                    {item.label}
                </Typography>
                {pending ? (
                    <Skeleton width={56} height={36} aria-label={`${item.label}加载中`} />
                ) : (
                    <Typography
                        variant="h5"
                        component="p"
                        sx={{ fontWeight: 600, lineHeight: 1.4 }}
                        data-testid={`count-${item.value}`}
                    >
                        {blank(value) ? '—' : shown(value)}
                    </Typography>
                )}
            </Box>
        </CardContent>
    );
    return (
        <Card variant="outlined">
            {item.to ? (
                <CardActionArea component={Link} to={item.to(scope)}>
                    {body}
                </CardActionArea>
            ) : (
                body
            )}
        </Card>
    );
}

/** Figures in a row (设备总数 / 在线): from a call's answer, or from the scope's record and loaded data. */
export function Counters({ call, items, scope, title = '统计' }: CountersProps) {
    const { data, isPending, isError, isFetching, error, refetch } = useCall<unknown>(call, scope);
    const source = call ? data : { ...scope.data, ...scope.record };
    if (call && isError && data === undefined) {
        return (
            <Alert
                severity="error"
                action={
                    <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                        重试
                    </Button>
                }
            >
                {title}数据加载失败：{(error as Error)?.message || '系统错误'}
            </Alert>
        );
    }
    const pending = !!call && isPending;
    if (items.some((item) => item.icon)) {
        return (
            <Box
                role="group"
                aria-label={title}
                sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fill, minmax(180px, 1fr))' }}
            >
                {items.map((item) => (
                    <CounterCard
                        key={item.label}
                        item={item}
                        value={readAt(source, item.value)}
                        pending={pending}
                        scope={scope}
                    />
                ))}
            </Box>
        );
    }
    return (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: { xs: 2, md: 4 } }} role="group" aria-label={title}>
            {items.map((item) => {
                const value = readAt(source, item.value);
                const figure = pending ? (
                    <Skeleton width={48} />
                ) : (
                    <Typography
                        component="span"
                        variant="h6"
                        sx={{ color: item.color, fontWeight: 600 }}
                        data-testid={`count-${item.value}`}
                    >
                        {blank(value) ? '-' : shown(value)}
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
