import type { ReactNode } from 'react';
import { Checkbox, Chip, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { STATUS_TEXT, type GroupDevice } from './api';

const STATUS_COLOR: Record<string, 'success' | 'default' | 'warning' | 'error'> = {
    ONLINE: 'success',
    OFFLINE: 'default',
    INACTIVE: 'warning',
    DISABLE: 'error',
};

interface DeviceRowsTableProps {
    label: string;
    rows: GroupDevice[];
    selected: Set<number>;
    onToggle: (deviceId: number) => void;
    onToggleAll: (checked: boolean) => void;
    /** The 操作 cell of a row. */
    actions?: (row: GroupDevice) => ReactNode;
}

/** Devices with checkboxes (group members, candidates); names and remarks are text, never markup. */
export function DeviceRowsTable({ label, rows, selected, onToggle, onToggleAll, actions }: DeviceRowsTableProps) {
    const all = rows.length > 0 && rows.every((r) => selected.has(r.deviceId));
    const some = rows.some((r) => selected.has(r.deviceId));
    return (
        <Table size="small" aria-label={label}>
            <TableHead>
                <TableRow>
                    <TableCell padding="checkbox">
                        <Checkbox
                            checked={all}
                            indeterminate={some && !all}
                            onChange={(e) => onToggleAll(e.target.checked)}
                            slotProps={{ input: { 'aria-label': '全选本页' } }}
                        />
                    </TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>DeviceName</TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>所属产品</TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>状态</TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>备注</TableCell>
                    <TableCell sx={{ fontWeight: 600 }}>最后上线时间</TableCell>
                    {actions ? <TableCell sx={{ fontWeight: 600 }}>操作</TableCell> : null}
                </TableRow>
            </TableHead>
            <TableBody>
                {rows.map((row) => (
                    <TableRow key={row.deviceId} hover selected={selected.has(row.deviceId)}>
                        <TableCell padding="checkbox">
                            <Checkbox
                                checked={selected.has(row.deviceId)}
                                onChange={() => onToggle(row.deviceId)}
                                slotProps={{ input: { 'aria-label': `选择 ${row.deviceName}` } }}
                            />
                        </TableCell>
                        <TableCell sx={{ wordBreak: 'break-all' }}>{row.deviceName}</TableCell>
                        <TableCell>{row.productName}</TableCell>
                        <TableCell>
                            <Chip
                                size="small"
                                label={STATUS_TEXT[row.status] ?? row.status}
                                color={STATUS_COLOR[row.status] ?? 'default'}
                                variant="outlined"
                            />
                        </TableCell>
                        <TableCell sx={{ maxWidth: 200, wordBreak: 'break-all' }}>{row.remark}</TableCell>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>{row.lastTime ?? '—'}</TableCell>
                        {actions ? <TableCell sx={{ whiteSpace: 'nowrap' }}>{actions(row)}</TableCell> : null}
                    </TableRow>
                ))}
            </TableBody>
        </Table>
    );
}

/** Adds or removes a page's worth of ids from a selection. */
export function toggled(selection: Set<number>, ids: number[], on: boolean): Set<number> {
    const next = new Set(selection);
    for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
    }
    return next;
}
