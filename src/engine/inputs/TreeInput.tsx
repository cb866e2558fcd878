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
import { useFormContext, useWatch } from 'react-hook-form';
import { useDataProvider, useInput } from 'react-admin';
import { runCall, useCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { useScope } from '../scope';
import type { CallRef, FieldDefinition, FormValues, Row, Scope } from '../types';
import { failureText, rowsOf } from './fieldView';

type TreeSpec = NonNullable<FieldDefinition['tree']>;
type Children = Row[] | 'loading' | Error;

export interface TreeInputProps {
    source: string;
    label: string;
    field: FieldDefinition;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
    onChange?: () => void;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tree's call asked for the children of `parent`: the definition's own params plus the parent's value. */
function childrenCall(spec: TreeSpec, parent: unknown): CallRef {
    return { ...spec.source, params: (scope) => ({ ...spec.source.params?.(scope), [spec.parentParam]: parent }) };
}

interface Node {
    row: Row;
    id: string | number;
    name: string;
    level: number;
}

function nodesOf(rows: Row[], spec: TreeSpec, level: number): Node[] {
    const value = spec.optionValue ?? 'id';
    const text = spec.optionText ?? 'name';
    return rows.map((row) => ({
        row,
        id: row[value] as string | number,
        name: String(row[text] ?? row[value] ?? ''),
        level,
    }));
}

const Status = ({ depth, children, role = 'status' }: { depth: number; children: ReactNode; role?: string }) => (
    <ListItem component="div" sx={{ pl: depth * 2.5 + 4.5 }} role={role}>
        {children}
    </ListItem>
);

/**
 * A tree select (input 'tree'; MUI has none): roots from `tree.source` with the parent param at `rootValue`,
 * children loaded when a node is expanded (after `delay` ms), nodes `disabled` says so shown but not choosable,
 * and `emptyOption` first. The value is the chosen node's value; `nameField` also receives its text.
 */
export function TreeInput({ source, label, field, isRequired, helperText, disabled, onChange }: TreeInputProps) {
    const spec = field.tree!;
    const form = useFormContext();
    const values = useWatch() as FormValues;
    const outer = useScope();
    const scope: Scope = { ...outer, values };
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const { field: input, fieldState, id } = useInput({ source, isRequired, onChange });
    const anchor = useRef<HTMLDivElement>(null);
    const [open, setOpen] = useState(false);
    const [expanded, setExpanded] = useState<Set<string>>(new Set());
    const [children, setChildren] = useState<Map<string, Children>>(new Map());
    const [names, setNames] = useState<Map<string, string>>(new Map());

    const rootRef = spec.roots ?? childrenCall(spec, spec.rootValue ?? 0);
    const blocked = spec.blocked?.(values);
    const roots = useCall<unknown>(rootRef, scope, { enabled: open && !disabled && !blocked });
    const rootKey = JSON.stringify([spec.source.params?.(scope) ?? {}, spec.roots?.params?.(scope) ?? {}]);

    // Other params (another project): another tree.
    useEffect(() => {
        setExpanded(new Set());
        setChildren(new Map());
    }, [rootKey]);

    const toggle = async (node: Node) => {
        const key = String(node.id);
        const next = new Set(expanded);
        if (next.has(key)) {
            next.delete(key);
            setExpanded(next);
            // A failed load is tried again on the next expand.
            if (children.get(key) instanceof Error) {
                setChildren((m) => {
                    const copy = new Map(m);
                    copy.delete(key);
                    return copy;
                });
            }
            return;
        }
        next.add(key);
        setExpanded(next);
        if (children.has(key)) return;
        setChildren((m) => new Map(m).set(key, 'loading'));
        let loaded: Children;
        try {
            if (spec.delay) await wait(spec.delay);
            loaded = rowsOf(await runCall(dataProvider, childrenCall(spec, node.id), scope, definition?.name));
        } catch (err) {
            loaded = new Error(failureText(err));
        }
        setChildren((m) => new Map(m).set(key, loaded));
    };

    const pick = (value: string | number, name: string) => {
        setNames((m) => new Map(m).set(String(value), name));
        input.onChange(value);
        if (field.nameField) form.setValue(field.nameField, name, { shouldDirty: true });
        setOpen(false);
        input.onBlur();
    };

    const renderNodes = (nodes: Node[], depth: number): ReactNode =>
        nodes.map((node) => {
            const key = String(node.id);
            const kids = children.get(key);
            const isOpen = expanded.has(key);
            const off = spec.disabled?.(node.row, node.level) ?? false;
            const expandable =
                (spec.hasChildren?.(node.row, node.level) ?? true) && !(Array.isArray(kids) && !kids.length);
            const selected = String(input.value) === key;
            const note = spec.note?.(node.row, node.level);
            return (
                <Box key={key} component="li" role="none" sx={{ listStyle: 'none' }}>
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
                                    onClick={() => void toggle(node)}
                                >
                                    {isOpen ? (
                                        <ExpandMoreIcon fontSize="small" />
                                    ) : (
                                        <ChevronRightIcon fontSize="small" />
                                    )}
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
                                secondary={note}
                                slotProps={{ primary: { noWrap: true }, secondary: { variant: 'caption' } }}
                            />
                        </ListItemButton>
                    </ListItem>
                    {isOpen && kids === 'loading' ? (
                        <Status depth={depth + 1}>
                            <CircularProgress size={14} sx={{ mr: 1 }} />
                            <Typography variant="caption">加载中…</Typography>
                        </Status>
                    ) : null}
                    {isOpen && kids instanceof Error ? (
                        <Status depth={depth + 1} role="alert">
                            <Typography variant="caption" color="error">
                                加载失败：{kids.message}，请收起后重试
                            </Typography>
                        </Status>
                    ) : null}
                    {isOpen && Array.isArray(kids) ? (
                        <List disablePadding role="group">
                            {renderNodes(nodesOf(kids, spec, node.level + 1), depth + 1)}
                        </List>
                    ) : null}
                </Box>
            );
        });

    const value = input.value as string | number | null | undefined;
    const empty = value === undefined || value === null || value === '';
    const emptyChosen = !empty && spec.emptyOption && String(spec.emptyOption.id) === String(value);
    // A value the form started with (edit) has no loaded node yet: its name field says what it is.
    const shown = empty
        ? ''
        : emptyChosen
          ? spec.emptyOption!.name
          : (names.get(String(value)) ??
            (field.nameField ? (values[field.nameField] as string | undefined) : undefined) ??
            String(value));
    const rootRows = rowsOf(roots.data);
    const message = fieldState.error?.message;

    return (
        <>
            <TextField
                ref={anchor}
                id={id}
                label={label}
                required={isRequired}
                value={shown}
                error={!!message}
                helperText={message ?? helperText ?? ' '}
                disabled={disabled}
                fullWidth
                size="small"
                margin="dense"
                placeholder="请选择"
                onClick={() => !disabled && setOpen(true)}
                onKeyDown={(e) => {
                    if (!disabled && (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowDown')) {
                        e.preventDefault();
                        setOpen(true);
                    }
                }}
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
                    input.onBlur();
                }}
                anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
                slotProps={{ paper: { sx: { width: anchor.current?.clientWidth ?? 360, maxHeight: 360 } } }}
            >
                <List role="tree" aria-label={label} dense sx={{ py: 0.5 }}>
                    {spec.emptyOption ? (
                        <ListItem
                            disablePadding
                            role="treeitem"
                            aria-label={spec.emptyOption.name}
                            aria-selected={!!emptyChosen}
                        >
                            <ListItemButton
                                dense
                                selected={!!emptyChosen}
                                onClick={() => pick(spec.emptyOption!.id, spec.emptyOption!.name)}
                                sx={{ pl: 5.5 }}
                            >
                                <ListItemText primary={spec.emptyOption.name} />
                            </ListItemButton>
                        </ListItem>
                    ) : null}
                    {blocked ? (
                        <ListItem>
                            <Typography variant="caption" color="text.secondary">
                                {blocked}
                            </Typography>
                        </ListItem>
                    ) : roots.isPending ? (
                        <Status depth={0}>
                            <CircularProgress size={14} sx={{ mr: 1 }} />
                            <Typography variant="caption">加载中…</Typography>
                        </Status>
                    ) : roots.error ? (
                        <ListItem>
                            <Typography variant="caption" color="error">
                                加载失败：{failureText(roots.error)}
                            </Typography>
                        </ListItem>
                    ) : rootRows.length === 0 && !spec.emptyOption ? (
                        <ListItem>
                            <Typography variant="caption" color="text.secondary">
                                暂无可选项
                            </Typography>
                        </ListItem>
                    ) : (
                        renderNodes(nodesOf(rootRows, spec, 1), 0)
                    )}
                </List>
            </Popover>
        </>
    );
}
