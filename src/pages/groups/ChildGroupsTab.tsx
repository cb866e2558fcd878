import { useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import {
    Alert,
    Box,
    Button,
    CircularProgress,
    Link as MuiLink,
    Table,
    TableBody,
    TableCell,
    TableHead,
    TableRow,
} from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Confirm } from 'react-admin';
import { GROUP_MESSAGES, GROUP_PAGE_SIZES } from '../../../schemas/group';
import { errorText, GROUPS, usePlatform, useRefreshGroups, useToast, type GroupDetail, type GroupRow } from './api';
import { EmptyGroups } from './GroupListPage';
import { GroupPager } from './GroupPager';
import { NewGroupDialog } from './NewGroupDialog';
import { useQueryParams } from './useQueryParams';

const PER_PAGE = 5;

function DeleteChild({ group, onDeleted }: { group: GroupRow; onDeleted: () => void }) {
    const platform = usePlatform();
    const toast = useToast();
    const [open, setOpen] = useState(false);
    const [pending, setPending] = useState(false);
    const remove = async () => {
        setPending(true);
        try {
            await platform.invoke(GROUPS, 'remove', { id: group.groupId });
            toast('删除成功');
            onDeleted();
        } catch (err) {
            toast(errorText(err, '删除失败'), 'error');
        } finally {
            setPending(false);
            setOpen(false);
        }
    };
    return (
        <>
            <Button size="small" color="error" sx={{ minWidth: 0 }} onClick={() => setOpen(true)} disabled={pending}>
                删除
            </Button>
            <Confirm
                isOpen={open}
                loading={pending}
                title="提示"
                content={GROUP_MESSAGES.deleteConfirm}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void remove()}
                onClose={() => setOpen(false)}
            />
        </>
    );
}

/** 子分组: the group's direct children, paged like /groups (5; 5 / 10 / 20), with 新建子分组. */
export function ChildGroupsTab({ group }: { group: GroupDetail }) {
    const platform = usePlatform();
    const refresh = useRefreshGroups();
    const { set, int } = useQueryParams();
    const [creating, setCreating] = useState(false);
    const page = int('cpage', 1);
    const perPage = int('csize', PER_PAGE);
    const children = useQuery({
        queryKey: [GROUPS, 'childList', group.groupId, page, perPage],
        queryFn: async () =>
            (
                await platform.invoke<{ records: GroupRow[]; total: number }>(GROUPS, 'childList', {
                    parentId: group.groupId,
                    pageNumber: page,
                    pageSize: perPage,
                })
            ).data,
        placeholderData: keepPreviousData,
    });
    const rows = children.data?.records ?? [];
    const total = children.data?.total ?? 0;

    const afterDelete = () => {
        // The last row of a later page: step back one page.
        if (rows.length <= 1 && page > 1) set({ cpage: page - 1 });
        void refresh();
    };

    return (
        <Box>
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', mb: 1 }}>
                <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
                    新建子分组
                </Button>
            </Box>
            {children.error && !children.data ? (
                <Alert severity="error">子分组加载失败：{errorText(children.error, '查询失败')}</Alert>
            ) : children.isPending ? (
                <Box sx={{ py: 4, textAlign: 'center' }} role="status">
                    <CircularProgress size={20} />
                </Box>
            ) : rows.length === 0 ? (
                <EmptyGroups text="暂无子分组" />
            ) : (
                <>
                    <Table size="small" aria-label="子分组">
                        <TableHead>
                            <TableRow>
                                <TableCell sx={{ fontWeight: 600 }}>分组ID</TableCell>
                                <TableCell sx={{ fontWeight: 600 }}>分组名称</TableCell>
                                <TableCell sx={{ fontWeight: 600 }}>描述</TableCell>
                                <TableCell sx={{ fontWeight: 600 }}>添加时间</TableCell>
                                <TableCell sx={{ fontWeight: 600 }}>操作</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {rows.map((row) => (
                                <TableRow key={row.groupId} hover>
                                    <TableCell>{row.groupId}</TableCell>
                                    <TableCell>{row.groupName}</TableCell>
                                    <TableCell sx={{ maxWidth: 240, wordBreak: 'break-all' }}>{row.remark}</TableCell>
                                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{row.createTime}</TableCell>
                                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                                        <MuiLink
                                            component={Link}
                                            to={`/groups/detail?groupId=${row.groupId}`}
                                            sx={{ mr: 1 }}
                                        >
                                            查看
                                        </MuiLink>
                                        <DeleteChild group={row} onDeleted={afterDelete} />
                                    </TableCell>
                                </TableRow>
                            ))}
                        </TableBody>
                    </Table>
                    <GroupPager
                        page={page}
                        perPage={perPage}
                        total={total}
                        onPage={(n) => set({ cpage: n })}
                        onPerPage={(n) => set({ csize: n, cpage: 1 })}
                        perPageOptions={[...GROUP_PAGE_SIZES]}
                        jumper
                    />
                </>
            )}
            <NewGroupDialog
                open={creating}
                onClose={() => setCreating(false)}
                parent={{
                    groupId: group.groupId,
                    groupName: group.groupName,
                    projectCode: group.projectCode,
                    projectName: group.projectName,
                }}
            />
        </Box>
    );
}
