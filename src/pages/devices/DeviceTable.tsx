import type { ReactNode } from 'react';
import InboxIcon from '@mui/icons-material/Inbox';
import { Alert, Box, Button, Typography } from '@mui/material';
import {
    Datagrid,
    ListContextProvider,
    Pagination,
    ResourceContextProvider,
    useListContext,
    type ListControllerResult,
} from 'react-admin';
import { useDefinition } from '../../engine/context';
import { renderField } from '../../engine/fields';

export function EmptyDevices({ text = '暂无设备', hint }: { text?: string; hint?: ReactNode }) {
    return (
        <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary', width: '100%' }}>
            <InboxIcon sx={{ fontSize: 56, opacity: 0.4 }} />
            <Typography variant="body1" sx={{ mt: 1 }}>
                {text}
            </Typography>
            {hint ? (
                <Typography variant="body2" sx={{ mt: 0.5 }}>
                    {hint}
                </Typography>
            ) : null}
        </Box>
    );
}

/** Checkboxes need bulk action buttons; the device actions live in the page's own toolbar instead. */
const SelectionOnly = () => <></>;

/**
 * How many devices are chosen, in line above the rows. react-admin's own bulk toolbar is laid over the toolbar
 * above the table, which here holds 关联项目 / 解绑项目: they must stay clickable while rows are selected.
 */
function SelectionBar() {
    const { selectedIds, onUnselectItems } = useListContext();
    if (!selectedIds?.length) return null;
    return (
        <Box
            sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 0.5, bgcolor: 'action.selected' }}
            role="status"
        >
            <Typography variant="body2">已选择 {selectedIds.length} 个设备</Typography>
            <Button size="small" onClick={() => onUnselectItems()}>
                取消选择
            </Button>
        </Box>
    );
}

interface DeviceTableProps {
    list: ListControllerResult;
    /** Definition fields shown as columns, in order. */
    columns: string[];
    /** Further columns after the fields (a switch, the 操作 column). */
    children?: ReactNode;
    selectable?: boolean;
    perPageOptions: number[];
    empty?: ReactNode;
}

/** A device table with its pager over a list context (engine useUrlListController). */
export function DeviceTable({ list, columns, children, selectable, perPageOptions, empty }: DeviceTableProps) {
    const definition = useDefinition();
    if (list.error && !list.data) {
        return (
            <Alert
                severity="error"
                action={
                    <Button color="inherit" size="small" onClick={() => void list.refetch()}>
                        重试
                    </Button>
                }
            >
                设备列表加载失败：{(list.error as Error).message || '查询失败'}
            </Alert>
        );
    }
    return (
        // /deviceInstance is a route of its own, not react-admin's <Resource>: the table names its resource itself.
        <ResourceContextProvider value={list.resource}>
            <ListContextProvider value={list}>
                <Datagrid
                    bulkActionButtons={selectable ? <SelectionOnly /> : false}
                    bulkActionsToolbar={selectable ? <SelectionBar /> : undefined}
                    rowClick={false}
                    empty={empty ?? <EmptyDevices />}
                    sx={{ '& .RaDatagrid-headerCell': { fontWeight: 600, whiteSpace: 'nowrap' } }}
                >
                    {columns.map((source) => renderField(source, definition.fields[source]))}
                    {children}
                </Datagrid>
                {list.total ? <Pagination rowsPerPageOptions={perPageOptions} /> : null}
            </ListContextProvider>
        </ResourceContextProvider>
    );
}
