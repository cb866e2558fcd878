import { useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import InboxIcon from '@mui/icons-material/Inbox';
import RefreshIcon from '@mui/icons-material/Refresh';
import { Alert, Box, Button, Card, CardContent, Typography } from '@mui/material';
import { Datagrid, ListContextProvider, ResourceContextProvider, Title, useRecordContext } from 'react-admin';
import { GROUP_PAGE_SIZES } from '../../../schemas/group';
import { useDefinition } from '../../engine/context';
import { renderField } from '../../engine/fields';
import { DeleteRowButton, RowLink } from '../../engine/RowActions';
import { useUrlListController } from '../../engine/useUrlList';
import { errorText, GROUPS, useRefreshGroups, type GroupRow } from './api';
import { GroupPager } from './GroupPager';
import { NewGroupDialog } from './NewGroupDialog';

const COLUMNS = ['groupId', 'groupName', 'createTime'];

function Actions(_props: { label?: string }) {
    const record = useRecordContext<GroupRow>();
    const refresh = useRefreshGroups();
    if (!record) return null;
    return (
        <Box sx={{ display: 'flex', gap: 0.25, alignItems: 'center' }}>
            <RowLink
                action={{ label: '查看', to: () => `/groups/detail?groupId=${record.groupId}` }}
                record={record as unknown as Record<string, unknown>}
            />
            {/* The tree select caches roots: they change with a delete too. */}
            <DeleteRowButton onDeleted={() => void refresh()} />
        </Box>
    );
}

export function EmptyGroups({
    text,
    onCreate,
    createLabel,
}: {
    text: string;
    onCreate?: () => void;
    createLabel?: string;
}) {
    return (
        <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary', width: '100%' }}>
            <InboxIcon sx={{ fontSize: 56, opacity: 0.4 }} />
            <Typography variant="body1" sx={{ mt: 1, mb: onCreate ? 2 : 0 }}>
                {text}
            </Typography>
            {onCreate ? (
                <Button variant="contained" startIcon={<AddIcon />} onClick={onCreate}>
                    {createLabel}
                </Button>
            ) : null}
        </Box>
    );
}

/** /groups (SPEC.md "Groups"): the group table, 5 a page with 5 / 10 / 20, quick jumper; page and size in the URL. */
export default function GroupListPage() {
    const definition = useDefinition();
    const options = definition.list!;
    const [creating, setCreating] = useState(false);
    const list = useUrlListController({ resource: GROUPS, perPage: options.perPage, selectionKey: 'groups' });
    const refresh = () => void list.refetch();

    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title="分组管理" />
            <Card variant="outlined">
                <CardContent>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 2, flexWrap: 'wrap' }}>
                        <Typography variant="h6" component="h1" sx={{ flex: 1 }}>
                            分组管理
                        </Typography>
                        <Button
                            variant="outlined"
                            startIcon={<RefreshIcon />}
                            onClick={refresh}
                            disabled={list.isFetching}
                        >
                            刷新
                        </Button>
                        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
                            新建分组
                        </Button>
                    </Box>
                    {list.error && !list.data ? (
                        <Alert
                            severity="error"
                            action={
                                <Button color="inherit" size="small" onClick={refresh}>
                                    重试
                                </Button>
                            }
                        >
                            分组列表加载失败：{errorText(list.error, '查询失败')}
                        </Alert>
                    ) : (
                        <ResourceContextProvider value={GROUPS}>
                            <ListContextProvider value={list}>
                                <Datagrid
                                    bulkActionButtons={false}
                                    rowClick={false}
                                    empty={
                                        <EmptyGroups
                                            text="暂无分组"
                                            onCreate={() => setCreating(true)}
                                            createLabel="新建分组"
                                        />
                                    }
                                    sx={{ '& .RaDatagrid-headerCell': { fontWeight: 600, whiteSpace: 'nowrap' } }}
                                >
                                    {COLUMNS.map((source) => renderField(source, definition.fields[source]))}
                                    <Actions label="操作" />
                                </Datagrid>
                                {list.total ? (
                                    <GroupPager
                                        page={list.page}
                                        perPage={list.perPage}
                                        total={list.total}
                                        onPage={list.setPage}
                                        onPerPage={list.setPerPage}
                                        perPageOptions={[...GROUP_PAGE_SIZES]}
                                        jumper
                                    />
                                ) : null}
                            </ListContextProvider>
                        </ResourceContextProvider>
                    )}
                </CardContent>
            </Card>
            <NewGroupDialog open={creating} onClose={() => setCreating(false)} />
        </Box>
    );
}
