import type { ReactNode } from 'react';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import {
    Box,
    CircularProgress,
    IconButton,
    List,
    ListItem,
    ListItemButton,
    ListItemText,
    Typography,
} from '@mui/material';
import type { Row } from '../types';
import type { Branch, TreeBranches, TreeSpec } from './useTreeBranches';

export interface TreeNode {
    row: Row;
    id: string | number;
    name: string;
    level: number;
}

export function nodesOf(rows: Row[], spec: TreeSpec, level: number): TreeNode[] {
    const value = spec.optionValue ?? 'id';
    const text = spec.optionText ?? 'name';
    return rows.map((row) => ({
        row,
        id: row[value] as string | number,
        name: String(row[text] ?? row[value] ?? ''),
        level,
    }));
}

export const TreeStatus = ({
    depth,
    children,
    role = 'status',
}: {
    depth: number;
    children: ReactNode;
    role?: string;
}) => (
    <ListItem component="div" sx={{ pl: depth * 2.5 + 4.5 }} role={role}>
        {children}
    </ListItem>
);

export const TreeLoading = ({ depth }: { depth: number }) => (
    <TreeStatus depth={depth}>
        <CircularProgress size={14} sx={{ mr: 1 }} />
        <Typography variant="caption">加载中…</Typography>
    </TreeStatus>
);

export interface TreeNodesProps {
    nodes: TreeNode[];
    depth: number;
    spec: TreeSpec;
    tree: TreeBranches;
    value: unknown;
    pick: (value: string | number, name: string) => void;
}

/** One level of the tree; an open node's children are the next level, or their loading or failure. */
export function TreeNodes(props: TreeNodesProps) {
    return props.nodes.map((node) => <TreeNodeItem key={String(node.id)} node={node} {...props} />);
}

function TreeNodeItem({ node, depth, spec, tree, value, pick }: TreeNodesProps & { node: TreeNode }) {
    const key = String(node.id);
    const kids: Branch | undefined = tree.branches.get(key);
    const isOpen = tree.expanded.has(key);
    const off = spec.disabled?.(node.row, node.level) ?? false;
    const expandable = (spec.hasChildren?.(node.row, node.level) ?? true) && !(Array.isArray(kids) && !kids.length);
    const selected = String(value) === key;
    return (
        <Box component="li" role="none" sx={{ listStyle: 'none' }}>
            <ListItem
                component="div"
                disablePadding
                role="treeitem"
                aria-label={node.name}
                aria-level={node.level}
                aria-disabled={off || undefined}
                aria-selected={selected}
                aria-expanded={expandable ? isOpen : undefined}
                sx={{ pl: depth * 2.5 }}
            >
                <Box sx={{ width: 36, flexShrink: 0, display: 'flex', justifyContent: 'center' }}>
                    {expandable ? (
                        <IconButton
                            size="small"
                            aria-label={`${isOpen ? '收起' : '展开'} ${node.name}`}
                            onClick={() => void tree.toggle(node.id)}
                        >
                            {isOpen ? <ExpandMoreIcon fontSize="small" /> : <ChevronRightIcon fontSize="small" />}
                        </IconButton>
                    ) : null}
                </Box>
                <ListItemButton
                    dense
                    disabled={off}
                    selected={selected}
                    onClick={() => pick(node.id, node.name)}
                    sx={{ borderRadius: 1, py: 0.25 }}
                >
                    <ListItemText
                        primary={node.name}
                        secondary={spec.note?.(node.row, node.level)}
                        slotProps={{ primary: { noWrap: true }, secondary: { variant: 'caption' } }}
                    />
                </ListItemButton>
            </ListItem>
            {isOpen && kids === 'loading' ? <TreeLoading depth={depth + 1} /> : null}
            {isOpen && kids instanceof Error ? (
                <TreeStatus depth={depth + 1} role="alert">
                    <Typography variant="caption" color="error">
                        加载失败：{kids.message}，请收起后重试
                    </Typography>
                </TreeStatus>
            ) : null}
            {isOpen && Array.isArray(kids) ? (
                <List disablePadding role="group">
                    <TreeNodes
                        nodes={nodesOf(kids, spec, node.level + 1)}
                        depth={depth + 1}
                        spec={spec}
                        tree={tree}
                        value={value}
                        pick={pick}
                    />
                </List>
            ) : null}
        </Box>
    );
}
