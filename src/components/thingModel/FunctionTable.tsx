import {
    Box,
    Button,
    Chip,
    LinearProgress,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TablePagination,
    TableRow,
    Typography,
} from '@mui/material';
import {
    FUNCTION_TYPE_LABELS,
    dataTypeLabel,
    describeFunction,
    functionMode,
    type ThingFunction,
    type Unit,
} from './model';

export interface FunctionTableProps {
    rows: ThingFunction[];
    total: number;
    page: number;
    perPage: number;
    onPageChange: (page: number) => void;
    onPerPageChange: (perPage: number) => void;
    loading?: boolean;
    units: Unit[];
    onEdit: (fn: ThingFunction) => void;
    onDelete: (fn: ThingFunction) => void;
}

const TYPE_COLORS = { property: 'primary', event: 'warning', service: 'success' } as const;

export function FunctionTable(props: FunctionTableProps) {
    const { rows, total, page, perPage, onPageChange, onPerPageChange, loading, units, onEdit, onDelete } = props;
    return (
        <Box>
            {loading && <LinearProgress sx={{ height: 2 }} />}
            <TableContainer>
                <Table size="small" aria-label="功能定义" sx={{ minWidth: 960 }}>
                    <TableHead>
                        <TableRow sx={{ '& th': { whiteSpace: 'nowrap' } }}>
                            <TableCell sx={{ width: 90 }}>功能类型</TableCell>
                            <TableCell>功能名称</TableCell>
                            <TableCell>标识符</TableCell>
                            <TableCell>数据类型</TableCell>
                            <TableCell>数据定义</TableCell>
                            <TableCell>读写类型 / 事件类型 / 调用方式</TableCell>
                            <TableCell sx={{ width: 130 }}>操作</TableCell>
                        </TableRow>
                    </TableHead>
                    <TableBody>
                        {rows.map((fn) => (
                            <TableRow key={fn.id ?? fn.identifier} hover>
                                <TableCell>
                                    <Chip
                                        size="small"
                                        variant="outlined"
                                        color={TYPE_COLORS[fn.type] ?? 'default'}
                                        label={FUNCTION_TYPE_LABELS[fn.type] ?? fn.type}
                                    />
                                </TableCell>
                                <TableCell sx={{ minWidth: 100 }}>
                                    {fn.name}
                                    {fn.standard && (
                                        <Chip size="small" label="标准" sx={{ ml: 1, height: 18, fontSize: 11 }} />
                                    )}
                                </TableCell>
                                <TableCell sx={{ fontFamily: 'monospace' }}>{fn.identifier}</TableCell>
                                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                                    {fn.type === 'property' ? dataTypeLabel(fn.dataType?.type) : '-'}
                                </TableCell>
                                <TableCell sx={{ maxWidth: 320, wordBreak: 'break-all' }}>
                                    {describeFunction(fn, units)}
                                </TableCell>
                                <TableCell>{functionMode(fn)}</TableCell>
                                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                                    <Button
                                        size="small"
                                        onClick={() => onEdit(fn)}
                                        aria-label={`编辑 ${fn.identifier}`}
                                    >
                                        编辑
                                    </Button>
                                    <Button
                                        size="small"
                                        color="error"
                                        onClick={() => onDelete(fn)}
                                        aria-label={`删除 ${fn.identifier}`}
                                    >
                                        删除
                                    </Button>
                                </TableCell>
                            </TableRow>
                        ))}
                        {!loading && rows.length === 0 && (
                            <TableRow>
                                <TableCell colSpan={7} align="center">
                                    <Typography color="text.secondary" sx={{ py: 3 }}>
                                        暂无功能定义，请添加自定义功能或标准功能
                                    </Typography>
                                </TableCell>
                            </TableRow>
                        )}
                    </TableBody>
                </Table>
            </TableContainer>
            <TablePagination
                component="div"
                count={total}
                page={page - 1}
                rowsPerPage={perPage}
                rowsPerPageOptions={[10, 20, 30, 40]}
                onPageChange={(_, p) => onPageChange(p + 1)}
                onRowsPerPageChange={(e) => onPerPageChange(Number(e.target.value))}
                labelRowsPerPage="每页条数"
                labelDisplayedRows={({ from, to, count }) => `第 ${from}-${to} 条，共 ${count} 条`}
            />
        </Box>
    );
}
