import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Box, Button, CircularProgress, Typography } from '@mui/material';
import { Confirm, useListContext, useRecordContext } from 'react-admin';
import { useDefinition } from '../../engine/context';
import { PROGRAM_LIST, errorText, usePlatform, useRefreshProjects, useToast, type ProjectRow } from './api';

/** SPEC.md "Projects": deleting a project with devices says how many lose their project. */
export const unbindWarning = (count: number) => `该项目下有${count}个设备，删除后这些设备将解除关联`;

/**
 * 删除 with a confirmation that, when the project has devices bound, says how many will be unbound. The count is
 * read fresh (GET /api/project/get) when the dialog opens; the row's own count stands in while it loads. After the
 * last row of a page beyond the first is deleted, the list steps back one page (SPEC.md "Pagination").
 */
export function DeleteProjectButton(_props: { label?: string }) {
    const definition = useDefinition();
    const record = useRecordContext<ProjectRow>();
    const { data, page, setPage } = useListContext();
    const platform = usePlatform();
    const queryClient = useQueryClient();
    const refresh = useRefreshProjects();
    const toast = useToast();
    const [open, setOpen] = useState(false);
    const [pending, setPending] = useState(false);
    const fresh = useQuery({
        queryKey: [PROGRAM_LIST, 'getOne', { id: String(record?.id) }, 'delete'],
        queryFn: async () => (await platform.getOne<ProjectRow>(PROGRAM_LIST, { id: record!.id })).data,
        enabled: open && !!record,
        staleTime: 0,
    });
    if (!record) return null;

    const deviceCount = fresh.data?.deviceCount ?? record.deviceCount ?? 0;
    const confirm = async () => {
        const stepBack = (data?.length ?? 0) <= 1 && page > 1;
        setPending(true);
        try {
            await platform.delete(PROGRAM_LIST, { id: record.id, previousData: record });
        } catch (error) {
            toast(errorText(error, definition.messages?.deleteFailed ?? '删除失败'), 'error');
            return;
        } finally {
            setPending(false);
            setOpen(false);
        }
        toast(definition.messages?.deleted ?? '删除成功');
        queryClient.removeQueries({ queryKey: [PROGRAM_LIST, 'getOne', { id: String(record.id) }] });
        if (stepBack) setPage(page - 1);
        await refresh();
    };

    return (
        <>
            <Button
                size="small"
                color="error"
                sx={{ minWidth: 0, px: 0.75, whiteSpace: 'nowrap' }}
                onClick={(e) => {
                    e.stopPropagation();
                    setOpen(true);
                }}
            >
                删除
            </Button>
            <Confirm
                isOpen={open}
                loading={pending}
                title={definition.list?.deleteConfirmTitle ?? '提示'}
                content={
                    <Box>
                        <Typography>{`确定删除项目「${record.name}」吗？`}</Typography>
                        {fresh.isPending ? (
                            <CircularProgress size={16} sx={{ mt: 1 }} aria-label="正在统计设备" />
                        ) : null}
                        {deviceCount > 0 ? (
                            <Typography color="warning.main" sx={{ mt: 1 }}>
                                {unbindWarning(deviceCount)}
                            </Typography>
                        ) : null}
                    </Box>
                }
                confirm="确定"
                cancel="取消"
                onConfirm={() => void confirm()}
                onClose={() => setOpen(false)}
            />
        </>
    );
}
