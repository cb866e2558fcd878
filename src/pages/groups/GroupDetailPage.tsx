import { useState } from 'react';
import EditIcon from '@mui/icons-material/Edit';
import {
    Alert,
    Box,
    Breadcrumbs,
    Button,
    Card,
    CardContent,
    Chip,
    CircularProgress,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    Link as MuiLink,
    Tab,
    Tabs,
    TextField,
    Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { Title } from 'react-admin';
import { GROUP_MESSAGES, MAX_GROUP_LEVEL } from '../../../schemas/group';
import { errorText, GROUPS, usePlatform, useRefreshGroups, useToast, type GroupDetail } from './api';
import { ChildGroupsTab } from './ChildGroupsTab';
import { GroupDevicesTab } from './GroupDevicesTab';
import { useQueryParams } from './useQueryParams';

const LEVEL_TEXT: Record<number, string> = { 1: '一级分组', 2: '二级分组', 3: '三级分组' };

function EditRemarkDialog({ group, open, onClose }: { group: GroupDetail; open: boolean; onClose: () => void }) {
    const platform = usePlatform();
    const toast = useToast();
    const refresh = useRefreshGroups();
    const [remark, setRemark] = useState(group.remark ?? '');
    const [pending, setPending] = useState(false);
    const tooLong = remark.trim().length > 200;
    const save = async () => {
        setPending(true);
        try {
            await platform.invoke(GROUPS, 'update', { groupId: group.groupId, remark: remark.trim() });
            toast('修改成功');
            await refresh();
            onClose();
        } catch (err) {
            toast(errorText(err), 'error');
        } finally {
            setPending(false);
        }
    };
    return (
        <Dialog open={open} onClose={() => !pending && onClose()} fullWidth maxWidth="sm" aria-labelledby="edit-group">
            <DialogTitle id="edit-group">编辑分组</DialogTitle>
            <DialogContent sx={{ pt: 0 }}>
                <TextField label="分组名称" value={group.groupName} disabled fullWidth margin="dense" />
                <TextField
                    label="描述"
                    value={remark}
                    onChange={(e) => setRemark(e.target.value)}
                    fullWidth
                    multiline
                    minRows={3}
                    margin="dense"
                    error={tooLong}
                    helperText={tooLong ? GROUP_MESSAGES.remarkMax : `${remark.trim().length}/200`}
                    autoFocus
                />
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={onClose} disabled={pending}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void save()} disabled={pending || tooLong}>
                    {pending ? '提交中…' : '确定'}
                </Button>
            </DialogActions>
        </Dialog>
    );
}

function InfoRow({ label, children }: { label: string; children: React.ReactNode }) {
    return (
        <Box sx={{ display: 'flex', py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <Typography variant="body2" color="text.secondary" sx={{ width: 120, flexShrink: 0 }}>
                {label}
            </Typography>
            <Typography variant="body2" component="div" sx={{ wordBreak: 'break-all' }}>
                {children}
            </Typography>
        </Box>
    );
}

function GroupInfoTab({ group }: { group: GroupDetail }) {
    const [editing, setEditing] = useState(false);
    return (
        <Box sx={{ maxWidth: 720 }}>
            <Box sx={{ display: 'flex', justifyContent: 'flex-end', mb: 1 }}>
                <Button startIcon={<EditIcon />} variant="outlined" onClick={() => setEditing(true)}>
                    编辑
                </Button>
            </Box>
            <InfoRow label="分组名称">{group.groupName}</InfoRow>
            <InfoRow label="分组ID">{group.groupId}</InfoRow>
            <InfoRow label="所属项目">{group.projectName ?? group.projectCode}</InfoRow>
            <InfoRow label="分组层级">{LEVEL_TEXT[group.level] ?? group.level}</InfoRow>
            <InfoRow label="分组路径">{group.hierarchy.join(' / ')}</InfoRow>
            <InfoRow label="设备数">
                {group.deviceTotal}（在线 {group.deviceOnline}）
            </InfoRow>
            <InfoRow label="子分组数">{group.childCount}</InfoRow>
            <InfoRow label="添加时间">{group.createTime}</InfoRow>
            <InfoRow label="描述">{group.remark || '—'}</InfoRow>
            {editing ? <EditRemarkDialog group={group} open={editing} onClose={() => setEditing(false)} /> : null}
        </Box>
    );
}

function useGroupId(): number | undefined {
    const { id } = useParams();
    const { search } = useQueryParams();
    const raw = id ?? search.get('groupId') ?? '';
    return /^\d{1,9}$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}

/** /groups/detail?groupId= and /groupDetail/{id} (SPEC.md "Groups"): 分组信息, 设备列表, 子分组 (not at level 3). */
export default function GroupDetailPage() {
    const groupId = useGroupId();
    const platform = usePlatform();
    const { search, set } = useQueryParams();
    const detail = useQuery({
        queryKey: [GROUPS, 'detail', groupId],
        queryFn: async () => (await platform.invoke<GroupDetail>(GROUPS, 'detail', { groupId })).data,
        enabled: groupId !== undefined,
        retry: false,
    });
    const group = detail.data;
    const canHaveChildren = !!group && group.level < MAX_GROUP_LEVEL;
    const requested = search.get('tab');
    const tab = requested === 'devices' || (requested === 'children' && canHaveChildren) ? requested : 'info';

    const back = (
        <Breadcrumbs aria-label="面包屑" sx={{ mb: 1.5 }}>
            <MuiLink component={Link} to="/groups" underline="hover" color="inherit">
                分组管理
            </MuiLink>
            <Typography color="text.primary">分组详情</Typography>
        </Breadcrumbs>
    );

    let body: React.ReactNode;
    if (groupId === undefined) {
        body = <Alert severity="warning">缺少分组ID，请从分组列表进入</Alert>;
    } else if (detail.isPending) {
        body = (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, py: 6, justifyContent: 'center' }} role="status">
                <CircularProgress size={20} />
                <Typography>加载中…</Typography>
            </Box>
        );
    } else if (detail.error || !group) {
        body = (
            <Alert
                severity="error"
                action={
                    <Button color="inherit" size="small" onClick={() => void detail.refetch()}>
                        重试
                    </Button>
                }
            >
                分组加载失败：{errorText(detail.error, '查询失败')}
            </Alert>
        );
    } else {
        body = (
            <>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
                    <Typography variant="h6" component="h1" sx={{ wordBreak: 'break-all' }}>
                        {group.groupName}
                    </Typography>
                    <Chip size="small" label={LEVEL_TEXT[group.level] ?? `${group.level}级`} />
                    {group.hierarchy.length > 1 ? (
                        <Typography variant="body2" color="text.secondary">
                            {group.hierarchy.join(' / ')}
                        </Typography>
                    ) : null}
                </Box>
                <Tabs
                    value={tab}
                    onChange={(_, next: string) => set({ tab: next === 'info' ? null : next })}
                    aria-label="分组详情"
                    sx={{ borderBottom: 1, borderColor: 'divider', mb: 2 }}
                >
                    <Tab value="info" label="分组信息" />
                    <Tab value="devices" label="设备列表" />
                    {canHaveChildren ? <Tab value="children" label="子分组" /> : null}
                </Tabs>
                {tab === 'info' ? <GroupInfoTab group={group} /> : null}
                {tab === 'devices' ? <GroupDevicesTab group={group} /> : null}
                {tab === 'children' ? <ChildGroupsTab group={group} /> : null}
            </>
        );
    }

    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title="分组详情" />
            {back}
            <Card variant="outlined">
                <CardContent>{body}</CardContent>
            </Card>
        </Box>
    );
}
