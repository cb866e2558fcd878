import { useRef, useState, type RefObject } from 'react';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import {
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
import { useCall } from '../calls';
import type { PlatformDataProvider } from '../choices';
import { useOptionalDefinition } from '../context';
import { useScope } from '../scope';
import type { FieldDefinition, FormValues, Scope } from '../types';
import { failureText, rowsOf, type EngineInputProps } from './fieldView';
import { TreeLoading, TreeNodes, nodesOf, type TreeNodesProps } from './TreeNodes';
import { childrenCall, useTreeBranches, type TreeSpec } from './useTreeBranches';

export type TreeInputProps = EngineInputProps;

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/** The empty option is the value. */
function emptyChosen(spec: TreeSpec, value: unknown): boolean {
    return !isEmpty(value) && !!spec.emptyOption && String(spec.emptyOption.id) === String(value);
}

/**
 * The text in the field: the chosen node's name. A value the form started with (edit) has no loaded node yet:
 * its name field says what it is.
 */
export function shownText(
    spec: TreeSpec,
    field: FieldDefinition,
    value: unknown,
    names: Map<string, string>,
    values: FormValues,
): string {
    if (isEmpty(value)) return '';
    if (emptyChosen(spec, value)) return spec.emptyOption!.name;
    return (
        names.get(String(value)) ??
        (field.nameField ? (values[field.nameField] as string | undefined) : undefined) ??
        String(value)
    );
}

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
    const [names, setNames] = useState<Map<string, string>>(new Map());

    const rootRef = spec.roots ?? childrenCall(spec, spec.rootValue ?? 0);
    const blocked = spec.blocked?.(values);
    const roots = useCall<unknown>(rootRef, scope, { enabled: open && !disabled && !blocked });
    const rootKey = JSON.stringify([spec.source.params?.(scope) ?? {}, spec.roots?.params?.(scope) ?? {}]);
    const tree = useTreeBranches(spec, scope, dataProvider, definition?.name, rootKey);

    const pick = (value: string | number, name: string) => {
        setNames((m) => new Map(m).set(String(value), name));
        input.onChange(value);
        if (field.nameField) form.setValue(field.nameField, name, { shouldDirty: true });
        setOpen(false);
        input.onBlur();
    };
    const message = fieldState.error?.message;
    const nodes = { spec, tree, value: input.value, pick, depth: 0 };

    return (
        <>
            <TreeField
                anchor={anchor}
                id={id}
                label={label}
                required={isRequired}
                shown={shownText(spec, field, input.value, names, values)}
                error={message}
                helperText={helperText}
                disabled={disabled}
                open={open}
                onOpen={() => setOpen(true)}
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
                        <EmptyOption spec={spec} chosen={emptyChosen(spec, input.value)} pick={pick} />
                    ) : null}
                    {blocked ? (
                        <Note>{blocked}</Note>
                    ) : roots.isPending ? (
                        <TreeLoading depth={0} />
                    ) : roots.error ? (
                        <ListItem>
                            <Typography variant="caption" color="error">
                                加载失败：{failureText(roots.error)}
                            </Typography>
                        </ListItem>
                    ) : rowsOf(roots.data).length === 0 && !spec.emptyOption ? (
                        <Note>暂无可选项</Note>
                    ) : (
                        <TreeNodes {...nodes} nodes={nodesOf(rowsOf(roots.data), spec, 1)} />
                    )}
                </List>
            </Popover>
        </>
    );
}

const Note = ({ children }: { children: string }) => (
    <ListItem>
        <Typography variant="caption" color="text.secondary">
            {children}
        </Typography>
    </ListItem>
);

function EmptyOption({ spec, chosen, pick }: { spec: TreeSpec; chosen: boolean; pick: TreeNodesProps['pick'] }) {
    const option = spec.emptyOption!;
    return (
        <ListItem disablePadding role="treeitem" aria-label={option.name} aria-selected={chosen}>
            <ListItemButton dense selected={chosen} onClick={() => pick(option.id, option.name)} sx={{ pl: 5.5 }}>
                <ListItemText primary={option.name} />
            </ListItemButton>
        </ListItem>
    );
}

interface TreeFieldProps {
    anchor: RefObject<HTMLDivElement | null>;
    id: string;
    label: string;
    required?: boolean;
    shown: string;
    error?: string;
    helperText?: string;
    disabled?: boolean;
    open: boolean;
    onOpen: () => void;
}

/** The read-only field that shows the chosen node and opens the tree on click, Enter, Space or ArrowDown. */
function TreeField({ anchor, id, label, required, shown, error, helperText, disabled, open, onOpen }: TreeFieldProps) {
    return (
        <TextField
            ref={anchor}
            id={id}
            label={label}
            required={required}
            value={shown}
            error={!!error}
            helperText={error ?? helperText ?? ' '}
            disabled={disabled}
            fullWidth
            size="small"
            margin="dense"
            placeholder="请选择"
            onClick={() => !disabled && onOpen()}
            onKeyDown={(e) => {
                if (!disabled && (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowDown')) {
                    e.preventDefault();
                    onOpen();
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
    );
}
