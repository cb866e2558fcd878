import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Card, CardContent, Chip, Typography } from '@mui/material';
import { ALERT_LEVELS, PROJECTS, alertTime, usePlatform, useQueryState, type AlertRow, type Page } from './api';
import { EmptyRows, SimpleTable, type Column } from './SimpleTable';

/** SPEC.md §9: alert events page at 10. */
const ALERT_PAGE_SIZE = 10;

const LEVEL_CHIP: Record<number, 'error' | 'warning' | 'info'> = { 1: 'error', 2: 'warning', 3: 'info' };

const ALERT_COLUMNS: Array<Column<AlertRow>> = [
    {
        key: 'type',
        label: '告警级别',
        nowrap: true,
        render: (r) => (
            <Chip size="small" color={LEVEL_CHIP[r.type] ?? 'default'} label={ALERT_LEVELS[r.type]?.name ?? r.type} />
        ),
    },
    { key: 'deviceName', label: '设备名称', nowrap: true, render: (r) => r.deviceName },
    { key: 'params', label: '告警内容', render: (r) => r.params || '-' },
    {
        key: 'status',
        label: '处理状态',
        nowrap: true,
        render: (r) => (Number(r.status) === 1 ? '已处理' : '待处理'),
    },
    { key: 'timestamp', label: '告警时间', nowrap: true, render: (r) => alertTime(r.timestamp) },
];

/** A titled card of the overview; `fill` stretches it to its grid cell, so the cards of one row line up. */
export function SectionCard({
    title,
    actions,
    children,
    fill = true,
}: {
    title: string;
    actions?: ReactNode;
    children: ReactNode;
    fill?: boolean;
}) {
    return (
        <Card variant="outlined" sx={fill ? { height: '100%' } : undefined} component="section" aria-label={title}>
            <CardContent>
                <Typography
                    variant="subtitle1"
                    component="h2"
                    sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, minHeight: 32 }}
                >
                    <span style={{ flex: 1 }}>{title}</span>
                    {actions}
                </Typography>
                {children}
            </CardContent>
        </Card>
    );
}

/** The project's alert events, newest first, 10 a page (?alertPage=). */
export function AlertTable({ projectId }: { projectId: number }) {
    const platform = usePlatform();
    const state = useQueryState();
    const page = state.number('alertPage', 1);
    const alerts = useQuery({
        queryKey: [PROJECTS, 'overview', projectId, 'alertList', page],
        queryFn: async () =>
            (
                await platform.invoke<Page<AlertRow>>(PROJECTS, 'alertList', {
                    projectId,
                    pageNumber: page,
                    pageSize: ALERT_PAGE_SIZE,
                })
            ).data,
        placeholderData: keepPreviousData,
    });
    // A bookmarked page past the end goes to the last page that has rows.
    const { data, isFetching } = alerts;
    const { update } = state;
    useEffect(() => {
        if (isFetching || !data || data.records.length > 0 || page <= 1 || !data.total) return;
        update({ alertPage: Math.max(1, Math.ceil(data.total / ALERT_PAGE_SIZE)) });
    }, [data, isFetching, page, update]);
    return (
        <SectionCard title="告警事件">
            <SimpleTable
                label="告警事件"
                columns={ALERT_COLUMNS}
                rows={alerts.data?.records}
                rowKey={(r) => r.id}
                loading={alerts.isFetching}
                error={alerts.error}
                onRetry={() => void alerts.refetch()}
                empty={<EmptyRows text="暂无告警事件" />}
                paging={{
                    page,
                    perPage: ALERT_PAGE_SIZE,
                    total: alerts.data?.total ?? 0,
                    options: [ALERT_PAGE_SIZE],
                    onPage: (next) => state.update({ alertPage: next === 1 ? null : next }),
                    onPerPage: () => undefined,
                }}
            />
        </SectionCard>
    );
}

interface RuleRow {
    id: number;
    name: string;
    status: string;
    description: string;
    createTime: string;
}

const RULE_COLUMNS: Array<Column<RuleRow>> = [
    { key: 'name', label: '规则名称', render: (r) => r.name },
    { key: 'status', label: '状态', nowrap: true, render: (r) => r.status },
    { key: 'description', label: '描述', render: (r) => r.description },
    { key: 'createTime', label: '创建时间', nowrap: true, render: (r) => r.createTime },
];

/** The project's rules. The rule engine comes with a later issue: until then the table says so. */
export function RuleTable() {
    return (
        <SectionCard title="规则引擎">
            <SimpleTable<RuleRow>
                label="规则引擎"
                columns={RULE_COLUMNS}
                rows={[]}
                rowKey={(r) => r.id}
                empty={<EmptyRows text="暂无规则" hint="规则引擎上线后，本项目的规则将显示在这里" />}
            />
        </SectionCard>
    );
}
