import { useEffect, useRef, useState, type ReactNode } from 'react';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import {
    Box,
    CircularProgress,
    IconButton,
    InputAdornment,
    List,
    ListItem,
    ListItemButton,
    ListItemText,
    Popover,
    TextField,
    Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { MAX_GROUP_LEVEL, TREE_CHILD_LOAD_DELAY_MS } from '../../../schemas/group';
import { delay, errorText, GROUPS, usePlatform, type TreeNode } from './api';

/** The "no parent" choice: the new group becomes a level-1 group (pid 0). */
export const ROOT_OPTION = '无（作为一级分组）';

type Children = TreeNode[] | 'loading' | Error;

interface GroupTreeSelectProps {
    /** Roots come from this project; without one only the root option is offered. */
    projectCode: string | undefined;
    value: number | '' | undefined;
    onChange: (pid: number, label: string) => void;
    onBlur?: () => void;
    label?: string;
    required?: boolean;
    error?: boolean;
    helperText?: ReactNode;
    /** Shown instead of the chosen node's name (a parent fixed by the screen). */
    valueLabel?: string;
    disabled?: boolean;
}

function TreeItem({
    node,
    depth,
    expanded,
    kids,
    onToggle,
    onPick,
    selected,
}: {
    node: TreeNode;
    depth: number;
    expanded: boolean;
    kids: Children | undefined;
    onToggle: (node: TreeNode) => void;
    onPick: (node: TreeNode) => void;
    selected: boolean;
}) {
    // SPEC.md "Groups": level-3 groups are shown but cannot be parents.
    const leafLevel = node.level >= MAX_GROUP_LEVEL;
    return (
        <>
            <ListItem
                disablePadding
                role="treeitem"
                aria-label={node.groupName}
                aria-level={node.level}
                aria-disabled={leafLevel || undefined}
                aria-selected={selected}
                aria-expanded={node.isLeaf ? undefined : expanded}
                sx={{ pl: depth * 2.5 }}
            >
                <Box sx={{ width: 36, display: 'flex', justifyContent: 'center' }}>
                    {node.isLeaf ? null : (
                        <IconButton
                            size="small"
                            aria-label={`${expanded ? '收起' : '展开'} ${node.groupName}`}
                            onClick={() => onToggle(node)}
                        >
                            {expanded ? <ExpandMoreIcon fontSize="small" /> : <ChevronRightIcon fontSize="small" />}
                        </IconButton>
                    )}
                </Box>
                <ListItemButton
                    dense
                    disabled={leafLevel}
                    selected={selected}
                    onClick={() => onPick(node)}
                    sx={{ borderRadius: 1, py: 0.25 }}
                >
                    <ListItemText
                        primary={node.groupName}
                        secondary={leafLevel ? '第三级分组，不能作为父组' : undefined}
                        slotProps={{ primary: { noWrap: true }, secondary: { variant: 'caption' } }}
                    />
                </ListItemButton>
            </ListItem>
            {expanded && kids === 'loading' ? (
                <ListItem sx={{ pl: (depth + 1) * 2.5 + 4.5 }} role="status">
                    <CircularProgress size={14} sx={{ mr: 1 }} />
                    <Typography variant="caption">加载中…</Typography>
                </ListItem>
            ) : null}
            {expanded && kids instanceof Error ? (
                <ListItem sx={{ pl: (depth + 1) * 2.5 + 4.5 }}>
                    <Typography variant="caption" color="error">
                        子分组加载失败：{kids.message}，请收起后重试
                    </Typography>
                </ListItem>
            ) : null}
        </>
    );
}

/**
 * The parent group picker of the new-group form (MUI has no tree select): the project's level-1 groups, children
 * loaded when a node is expanded (after SPEC.md's 300 ms), level-3 nodes shown but disabled, and the root option.
 */
export function GroupTreeSelect({
    projectCode,
    value,
    onChange,
    onBlur,
    label = '父级分组',
    required,
    error,
    helperText,
    valueLabel,
    disabled,
}: GroupTreeSelectProps) {
    const platform = usePlatform();
    const anchor = useRef<HTMLDivElement>(null);
    const [open, setOpen] = useState(false);
    const [chosen, setChosen] = useState<string>('');
    const [expanded, setExpanded] = useState<Set<number>>(new Set());
    const [children, setChildren] = useState<Map<number, Children>>(new Map());

    const roots = useQuery({
        queryKey: [GROUPS, 'tree', projectCode],
        queryFn: async () => (await platform.invoke<TreeNode[]>(GROUPS, 'tree', { projectCode })).data ?? [],
        enabled: !!projectCode && !disabled,
    });

    // Another project: another tree.
    useEffect(() => {
        setExpanded(new Set());
        setChildren(new Map());
    }, [projectCode]);

    const toggle = async (node: TreeNode) => {
        const next = new Set(expanded);
        if (next.has(node.groupId)) {
            next.delete(node.groupId);
            setExpanded(next);
            // A failed load is tried again on the next expand.
            if (children.get(node.groupId) instanceof Error) {
                setChildren((m) => {
                    const copy = new Map(m);
                    copy.delete(node.groupId);
                    return copy;
                });
            }
            return;
        }
        next.add(node.groupId);
        setExpanded(next);
        if (children.has(node.groupId)) return;
        setChildren((m) => new Map(m).set(node.groupId, 'loading'));
        let loaded: Children;
        try {
            await delay(TREE_CHILD_LOAD_DELAY_MS);
            loaded = (await platform.invoke<TreeNode[]>(GROUPS, 'children', { parentId: node.groupId })).data ?? [];
        } catch (err) {
            loaded = new Error(errorText(err, '查询失败'));
        }
        setChildren((m) => new Map(m).set(node.groupId, loaded));
    };

    const pick = (pid: number, name: string) => {
        setChosen(name);
        onChange(pid, name);
        setOpen(false);
        onBlur?.();
    };

    const renderNodes = (nodes: TreeNode[], depth: number): ReactNode =>
        nodes.map((node) => {
            const kids = children.get(node.groupId);
            const isOpen = expanded.has(node.groupId);
            return (
                <Box key={node.groupId} component="li" sx={{ listStyle: 'none' }}>
                    <List disablePadding>
                        <TreeItem
                            node={node}
                            depth={depth}
                            expanded={isOpen}
                            kids={kids}
                            onToggle={(n) => void toggle(n)}
                            onPick={(n) => pick(n.groupId, n.groupName)}
                            selected={value === node.groupId}
                        />
                    </List>
                    {isOpen && Array.isArray(kids) ? (
                        <List disablePadding role="group">
                            {renderNodes(kids, depth + 1)}
                        </List>
                    ) : null}
                </Box>
            );
        });

    const shown =
        valueLabel ?? (value === 0 ? ROOT_OPTION : value === '' || value === undefined ? '' : chosen || String(value));
    return (
        <>
            <TextField
                ref={anchor}
                label={label}
                required={required}
                value={shown}
                error={error}
                helperText={helperText}
                disabled={disabled}
                fullWidth
                margin="dense"
                onClick={() => !disabled && setOpen(true)}
                onKeyDown={(e) => {
                    if (!disabled && (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowDown')) {
                        e.preventDefault();
                        setOpen(true);
                    }
                }}
                placeholder="请选择父组"
                slotProps={{
                    input: {
                        readOnly: true,
                        endAdornment: (
                            <InputAdornment position="end">
                                <ArrowDropDownIcon />
                            </InputAdornment>
                        ),
                    },
                    htmlInput: { 'aria-haspopup': 'tree', 'aria-expanded': open, style: { cursor: 'pointer' } },
                }}
            />
            <Popover
                open={open}
                anchorEl={anchor.current}
                onClose={() => {
                    setOpen(false);
                    onBlur?.();
                }}
                anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
                slotProps={{ paper: { sx: { width: anchor.current?.clientWidth ?? 360, maxHeight: 360 } } }}
            >
                <List role="tree" aria-label={label} dense sx={{ py: 0.5 }}>
                    <ListItem disablePadding role="treeitem" aria-label={ROOT_OPTION} aria-selected={value === 0}>
                        <ListItemButton
                            dense
                            selected={value === 0}
                            onClick={() => pick(0, ROOT_OPTION)}
                            sx={{ pl: 5.5 }}
                        >
                            <ListItemText primary={ROOT_OPTION} />
                        </ListItemButton>
                    </ListItem>
                    {!projectCode ? (
                        <ListItem>
                            <Typography variant="caption" color="text.secondary">
                                选择项目后可选择该项目的分组
                            </Typography>
                        </ListItem>
                    ) : roots.isPending ? (
                        <ListItem role="status">
                            <CircularProgress size={14} sx={{ mr: 1 }} />
                            <Typography variant="caption">加载中…</Typography>
                        </ListItem>
                    ) : roots.error ? (
                        <ListItem>
                            <Typography variant="caption" color="error">
                                分组加载失败：{errorText(roots.error, '查询失败')}
                            </Typography>
                        </ListItem>
                    ) : (
                        renderNodes(roots.data ?? [], 0)
                    )}
                </List>
            </Popover>
        </>
    );
}
