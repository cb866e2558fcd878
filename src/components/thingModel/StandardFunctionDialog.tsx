import { useId, useMemo, useState } from 'react';
import { useCreate, useGetList } from 'react-admin';
import {
    Alert,
    Button,
    Checkbox,
    Chip,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import { FUNCTION_TYPE_LABELS, describeFunction, type ThingFunction, type Unit } from './model';
import { errorMessage, useInvoke } from './api';

export interface StandardFunctionDialogProps {
    productId: number;
    categoryId?: number | null;
    units: Unit[];
    onClose: () => void;
    /** Called after adding, with how many were added; the dialog stays open to show any that failed. */
    onAdded: (count: number) => void;
}

/** 添加标准功能: pick any of the product category's standard functions and add them to the thing model. */
export function StandardFunctionDialog({
    productId,
    categoryId,
    units,
    onClose,
    onAdded,
}: StandardFunctionDialogProps) {
    const titleId = useId();
    const hasCategory = categoryId !== undefined && categoryId !== null && `${categoryId}` !== '';
    const standard = useInvoke<ThingFunction[]>('thingFunctions', 'standard', hasCategory ? { categoryId } : null, []);
    // The product's whole model, to mark the standard functions it already has.
    const existing = useGetList<ThingFunction & { id: number }>('thingFunctions', {
        pagination: { page: 1, perPage: 1000 },
        filter: { productId },
    });
    const taken = useMemo(() => new Set((existing.data ?? []).map((f) => f.identifier)), [existing.data]);
    const [selected, setSelected] = useState<string[]>([]);
    const [failures, setFailures] = useState<string[]>([]);
    const [adding, setAdding] = useState(false);
    const [create] = useCreate<ThingFunction & { id: number }>();

    const rows = Array.isArray(standard.data) ? standard.data : [];
    const selectable = rows.filter((f) => !taken.has(f.identifier));
    const toggle = (identifier: string) =>
        setSelected((s) => (s.includes(identifier) ? s.filter((i) => i !== identifier) : [...s, identifier]));

    const add = async () => {
        setAdding(true);
        setFailures([]);
        const errors: string[] = [];
        let added = 0;
        for (const fn of rows.filter((f) => selected.includes(f.identifier))) {
            try {
                await create(
                    'thingFunctions',
                    { data: { ...fn, id: undefined, productId, standard: true } },
                    { returnPromise: true },
                );
                added++;
            } catch (error) {
                errors.push(`${fn.name}（${fn.identifier}）：${errorMessage(error, '添加失败')}`);
            }
        }
        setAdding(false);
        setSelected([]);
        setFailures(errors);
        existing.refetch();
        if (added > 0) onAdded(added);
        if (errors.length === 0) onClose();
    };

    const loading = standard.isPending || existing.isPending;
    return (
        <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>添加标准功能</DialogTitle>
            <DialogContent dividers>
                {!hasCategory && <Alert severity="info">该产品未选择所属分类，暂无标准功能</Alert>}
                {failures.length > 0 && (
                    <Alert severity="error" sx={{ mb: 2 }}>
                        {failures.map((f) => (
                            <div key={f}>{f}</div>
                        ))}
                    </Alert>
                )}
                {loading && hasCategory && <LinearProgress sx={{ height: 2 }} />}
                {hasCategory && !loading && rows.length === 0 && (
                    <Typography color="text.secondary" sx={{ py: 2 }}>
                        该分类暂无标准功能
                    </Typography>
                )}
                {rows.length > 0 && (
                    <Table size="small" aria-label="标准功能">
                        <TableHead>
                            <TableRow>
                                <TableCell padding="checkbox">
                                    <Checkbox
                                        inputProps={{ 'aria-label': '全选' }}
                                        checked={selectable.length > 0 && selected.length === selectable.length}
                                        indeterminate={selected.length > 0 && selected.length < selectable.length}
                                        onChange={(e) =>
                                            setSelected(e.target.checked ? selectable.map((f) => f.identifier) : [])
                                        }
                                    />
                                </TableCell>
                                <TableCell>功能类型</TableCell>
                                <TableCell>功能名称</TableCell>
                                <TableCell>标识符</TableCell>
                                <TableCell>数据定义</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {rows.map((fn) => {
                                const has = taken.has(fn.identifier);
                                return (
                                    <TableRow key={fn.identifier} hover={!has}>
                                        <TableCell padding="checkbox">
                                            <Checkbox
                                                inputProps={{ 'aria-label': `选择 ${fn.identifier}` }}
                                                disabled={has}
                                                checked={has || selected.includes(fn.identifier)}
                                                onChange={() => toggle(fn.identifier)}
                                            />
                                        </TableCell>
                                        <TableCell>{FUNCTION_TYPE_LABELS[fn.type] ?? fn.type}</TableCell>
                                        <TableCell>
                                            {fn.name}
                                            {has && <Chip size="small" label="已添加" sx={{ ml: 1, height: 18 }} />}
                                        </TableCell>
                                        <TableCell sx={{ fontFamily: 'monospace' }}>{fn.identifier}</TableCell>
                                        <TableCell>{describeFunction(fn, units)}</TableCell>
                                    </TableRow>
                                );
                            })}
                        </TableBody>
                    </Table>
                )}
            </DialogContent>
            <DialogActions>
                <Typography variant="body2" color="text.secondary" sx={{ mr: 'auto', pl: 2 }}>
                    已选择 {selected.length} 个
                </Typography>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" onClick={add} disabled={selected.length === 0 || adding}>
                    添加
                </Button>
            </DialogActions>
        </Dialog>
    );
}
