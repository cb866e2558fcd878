import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Box, Button } from '@mui/material';
import { Link } from 'react-router-dom';
import {
    Confirm,
    useCreatePath,
    useDataProvider,
    useListContext,
    useNotify,
    useRecordContext,
    useResourceDefinition,
} from 'react-admin';
import { resourcePath, useDefinition } from './context';
import type { RowAction } from './types';

type Row = Record<string, unknown>;

const stop = (e: React.MouseEvent) => e.stopPropagation();

const ACTION_SX = { minWidth: 0, px: 0.75, whiteSpace: 'nowrap' } as const;

/** One row link (查看, 子设备, ...) styled like the other row actions. */
export function RowLink({ action, record }: { action: RowAction; record: Row }) {
    const Icon = action.icon;
    return (
        <Button
            size="small"
            component={Link}
            to={action.to?.(record) ?? '#'}
            onClick={stop}
            startIcon={Icon ? <Icon /> : undefined}
            sx={ACTION_SX}
        >
            {action.label}
        </Button>
    );
}

/**
 * Delete with the definition's confirmation. After the last row of a page beyond the first is deleted the list
 * steps back one page (SPEC.md "Pagination"). react-admin's useDelete would first empty the page in its cache, and
 * its list then jumps to page 1 before our (transition-priority) navigation lands, so the delete is done here.
 */
export function DeleteRowButton({
    label = '删除',
    onDeleted,
}: {
    label?: string;
    /** After a successful delete (e.g. to refresh counts the list does not carry). */
    onDeleted?: (record: Row) => void;
}) {
    const definition = useDefinition();
    const record = useRecordContext<Row & { id: string | number }>();
    const { data, page, setPage } = useListContext();
    const dataProvider = useDataProvider();
    const queryClient = useQueryClient();
    const notify = useNotify();
    const [open, setOpen] = useState(false);
    const [isPending, setPending] = useState(false);
    if (!record) return null;
    const resource = resourcePath(definition);

    const confirm = async () => {
        const stepBack = (data?.length ?? 0) <= 1 && page > 1;
        setPending(true);
        try {
            await dataProvider.delete(resource, { id: record.id, previousData: record });
        } catch (error) {
            const text = (error instanceof Error && error.message) || definition.messages?.deleteFailed || '删除失败';
            notify(text, { type: 'error', messageArgs: { _: text } });
            return;
        } finally {
            setPending(false);
            setOpen(false);
        }
        const text = definition.messages?.deleted ?? '删除成功';
        notify(text, { type: 'success', messageArgs: { _: text } });
        queryClient.removeQueries({ queryKey: [resource, 'getOne', { id: String(record.id) }] });
        onDeleted?.(record);
        if (stepBack) {
            setPage(page - 1);
            // Stale, but the page being left is not fetched again: answered empty, it would send the list to page 1.
            await queryClient.invalidateQueries({ queryKey: [resource], refetchType: 'none' });
        } else {
            await queryClient.invalidateQueries({ queryKey: [resource] });
        }
    };

    return (
        <>
            <Button
                size="small"
                color="error"
                sx={ACTION_SX}
                onClick={(e) => {
                    stop(e);
                    setOpen(true);
                }}
            >
                {label}
            </Button>
            <Confirm
                isOpen={open}
                loading={isPending}
                title={definition.list?.deleteConfirmTitle ?? '提示'}
                content={definition.list?.deleteConfirm || '确定删除吗？'}
                confirm="确定"
                cancel="取消"
                onConfirm={confirm}
                onClose={() => setOpen(false)}
            />
        </>
    );
}

/** The '操作' column: the definition's row links, then show / edit / delete as the list options say. */
export function RowActions(_props: { label?: string }) {
    const definition = useDefinition();
    const record = useRecordContext<Row & { id: string | number }>();
    const createPath = useCreatePath();
    const { hasShow, hasEdit } = useResourceDefinition();
    if (!record) return null;
    const list = definition.list;
    const resource = resourcePath(definition);
    const showButton = list?.show ?? (hasShow && !list?.rowActions?.length);
    const editButton = list?.edit ?? hasEdit;
    const deletes = list?.deleteConfirm !== false && (!definition.api || !!definition.api.delete);
    return (
        <Box sx={{ display: 'flex', flexWrap: 'nowrap', gap: 0.25, alignItems: 'center' }}>
            {list?.rowActions
                ?.filter((a) => a.kind === 'link' && (!a.when || a.when({ record, route: {}, query: {} })))
                .map((a) => (
                    <RowLink
                        key={String(a.label)}
                        action={{
                            label: String(a.label),
                            to: (r) => (a as { to: (s: object) => string }).to({ record: r, route: {}, query: {} }),
                        }}
                        record={record}
                    />
                ))}
            {showButton ? (
                <RowLink
                    action={{ label: '查看', to: () => createPath({ resource, type: 'show', id: record.id }) }}
                    record={record}
                />
            ) : null}
            {editButton ? (
                <RowLink
                    action={{ label: '编辑', to: () => createPath({ resource, type: 'edit', id: record.id }) }}
                    record={record}
                />
            ) : null}
            {deletes ? <DeleteRowButton /> : null}
        </Box>
    );
}
