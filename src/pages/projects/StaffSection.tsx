import { useEffect, useState } from 'react';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import SearchIcon from '@mui/icons-material/Search';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
    Alert,
    Button,
    Checkbox,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    InputAdornment,
    LinearProgress,
    List,
    ListItem,
    ListItemButton,
    ListItemIcon,
    ListItemText,
    TextField,
    Typography,
} from '@mui/material';
import { Confirm } from 'react-admin';
import { PROJECTS, errorText, usePlatform, useToast, type StaffRow, type UserOption } from './api';
import { SectionCard } from './OverviewTables';
import { EmptyRows, SimpleTable, type Column } from './SimpleTable';

/** SPEC.md §9: the staff table scrolls at 175 px. */
export const STAFF_TABLE_HEIGHT = 175;
const SEARCH_DELAY = 300;

interface AddStaffDialogProps {
    open: boolean;
    onClose: () => void;
    projectCode: string;
    /** Users already on the project: shown, not selectable. */
    assigned: Set<number>;
    onAdded: () => void;
}

/** 添加人员: search users by phone number, tick some, and send them as a list of { projectCode, userId }. */
function AddStaffDialog({ open, onClose, projectCode, assigned, onAdded }: AddStaffDialogProps) {
    const platform = usePlatform();
    const toast = useToast();
    const [phone, setPhone] = useState('');
    const [query, setQuery] = useState('');
    const [chosen, setChosen] = useState<number[]>([]);
    const [saving, setSaving] = useState(false);
    useEffect(() => {
        const timer = setTimeout(() => setQuery(phone.trim()), SEARCH_DELAY);
        return () => clearTimeout(timer);
    }, [phone]);
    const users = useQuery({
        queryKey: [PROJECTS, 'users', query],
        queryFn: async () => (await platform.invoke<UserOption[]>(PROJECTS, 'users', { phoneNumber: query })).data,
        enabled: open,
    });

    const close = () => {
        if (saving) return;
        setPhone('');
        setQuery('');
        setChosen([]);
        onClose();
    };
    const toggle = (userId: number) =>
        setChosen((current) =>
            current.includes(userId) ? current.filter((id) => id !== userId) : [...current, userId],
        );

    const confirm = async () => {
        if (chosen.length === 0) {
            toast('请选择要添加的人员', 'warning');
            return;
        }
        setSaving(true);
        try {
            await platform.invoke(PROJECTS, 'addStaff', {
                list: chosen.map((userId) => ({ projectCode, userId })),
            });
        } catch (error) {
            setSaving(false);
            toast(errorText(error), 'error');
            return;
        }
        setSaving(false);
        toast('添加成功');
        onAdded();
        setPhone('');
        setQuery('');
        setChosen([]);
        onClose();
    };

    return (
        <Dialog open={open} onClose={close} fullWidth maxWidth="xs" aria-labelledby="add-staff-title">
            <DialogTitle id="add-staff-title">添加人员</DialogTitle>
            <DialogContent>
                <TextField
                    size="small"
                    fullWidth
                    placeholder="请输入手机号码搜索"
                    value={phone}
                    onChange={(e) => setPhone(e.target.value.replace(/\D/g, ''))}
                    slotProps={{
                        htmlInput: { 'aria-label': '手机号码', inputMode: 'numeric', maxLength: 11 },
                        input: {
                            startAdornment: (
                                <InputAdornment position="start">
                                    <SearchIcon fontSize="small" />
                                </InputAdornment>
                            ),
                        },
                    }}
                    sx={{ mt: 1 }}
                />
                {users.isFetching ? <LinearProgress aria-label="用户加载中" sx={{ mt: 1 }} /> : null}
                {users.error ? (
                    <Alert severity="error" sx={{ mt: 1 }}>
                        {errorText(users.error, '查询失败')}
                    </Alert>
                ) : null}
                {users.data && users.data.length === 0 ? (
                    <Typography color="text.secondary" sx={{ py: 2 }}>
                        没有找到手机号码包含「{query}」的用户
                    </Typography>
                ) : null}
                <List dense aria-label="用户" sx={{ maxHeight: 300, overflowY: 'auto' }}>
                    {(users.data ?? []).map((u) => {
                        const already = assigned.has(u.userId);
                        return (
                            <ListItem key={u.userId} disablePadding>
                                <ListItemButton disabled={already} onClick={() => toggle(u.userId)} dense>
                                    <ListItemIcon sx={{ minWidth: 36 }}>
                                        <Checkbox
                                            edge="start"
                                            size="small"
                                            checked={already || chosen.includes(u.userId)}
                                            tabIndex={-1}
                                            disableRipple
                                            slotProps={{ input: { 'aria-label': `${u.username} ${u.mobile ?? ''}` } }}
                                        />
                                    </ListItemIcon>
                                    <ListItemText
                                        primary={`${u.username}（${u.loginName}）`}
                                        secondary={already ? `${u.mobile ?? '-'} · 已在项目中` : (u.mobile ?? '-')}
                                    />
                                </ListItemButton>
                            </ListItem>
                        );
                    })}
                </List>
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }}>
                    {chosen.length ? `已选择 ${chosen.length} 人` : ''}
                </Typography>
                <Button onClick={close} disabled={saving}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void confirm()} disabled={saving}>
                    {saving ? '添加中…' : '确定'}
                </Button>
            </DialogActions>
        </Dialog>
    );
}

/** The project's staff (scroll height 175) with 添加人员 and 移除 after a confirmation. */
export function StaffSection({ projectCode }: { projectCode: string }) {
    const platform = usePlatform();
    const queryClient = useQueryClient();
    const toast = useToast();
    const [adding, setAdding] = useState(false);
    const [removing, setRemoving] = useState<StaffRow>();
    const [pending, setPending] = useState(false);
    const staffKey = [PROJECTS, 'staff', projectCode];
    const staff = useQuery({
        queryKey: staffKey,
        queryFn: async () => (await platform.invoke<StaffRow[]>(PROJECTS, 'staff', { projectCode })).data ?? [],
    });
    const refresh = () => queryClient.invalidateQueries({ queryKey: staffKey });

    const remove = async () => {
        if (!removing) return;
        setPending(true);
        try {
            await platform.invoke(PROJECTS, 'removeStaff', { id: removing.id });
            toast('移除成功');
            await refresh();
        } catch (error) {
            toast(errorText(error), 'error');
        } finally {
            setPending(false);
            setRemoving(undefined);
        }
    };

    const columns: Array<Column<StaffRow>> = [
        { key: 'username', label: '姓名', render: (r) => r.username },
        { key: 'loginName', label: '登录名', render: (r) => r.loginName },
        { key: 'mobile', label: '手机号码', nowrap: true, render: (r) => r.mobile || '-' },
        {
            key: 'actions',
            label: '操作',
            nowrap: true,
            render: (r) => (
                <Button size="small" color="error" sx={{ minWidth: 0, px: 0.75 }} onClick={() => setRemoving(r)}>
                    移除
                </Button>
            ),
        },
    ];

    return (
        <SectionCard
            title="项目人员"
            actions={
                <Button size="small" variant="outlined" startIcon={<PersonAddIcon />} onClick={() => setAdding(true)}>
                    添加人员
                </Button>
            }
        >
            <SimpleTable
                label="项目人员"
                columns={columns}
                rows={staff.data}
                rowKey={(r) => r.id}
                loading={staff.isFetching}
                error={staff.error}
                onRetry={() => void staff.refetch()}
                empty={<EmptyRows text="暂无项目人员" hint="点击「添加人员」按手机号码查找用户" />}
                maxHeight={STAFF_TABLE_HEIGHT}
            />
            <AddStaffDialog
                open={adding}
                onClose={() => setAdding(false)}
                projectCode={projectCode}
                assigned={new Set((staff.data ?? []).map((s) => s.userId))}
                onAdded={() => void refresh()}
            />
            <Confirm
                isOpen={!!removing}
                loading={pending}
                title="提示"
                content={removing ? `确定将「${removing.username}」移出项目人员吗？` : ''}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void remove()}
                onClose={() => setRemoving(undefined)}
            />
        </SectionCard>
    );
}
