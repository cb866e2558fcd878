import {
    Alert,
    Box,
    Chip,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import type { WidgetProps } from '../registry';

export interface ImportResult {
    success: Array<{ deviceName: string }>;
    /** `line`: the row's line in the file, when the platform says (the reference platform does). */
    failure: Array<{ deviceName: string; msg: string; line?: number }>;
}

/** Names shown one by one; a large import lists the first ones and says how many more. */
const SHOWN_NAMES = 100;
/** A table of every refused row of a 100,000-row file would stall the page; the first ones say what is wrong. */
const SHOWN_FAILURES = 500;

/**
 * The answer of a device import (the upload action's `result`): how many were written and which, and each refused
 * row with its line and reason. A display of an answer already at hand, not a list over a call.
 */
export function ImportResultView({ answer }: WidgetProps) {
    const result = (answer ?? {}) as Partial<ImportResult>;
    const success = result.success ?? [];
    const failure = result.failure ?? [];
    const lines = failure.some((f) => typeof f.line === 'number');
    return (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
            <Alert severity={failure.length === 0 ? 'success' : success.length === 0 ? 'error' : 'warning'}>
                导入成功 {success.length} 个，失败 {failure.length} 个
            </Alert>
            <Box component="section" aria-label="导入成功的设备">
                <Typography variant="subtitle2" gutterBottom>
                    导入成功（{success.length}）
                </Typography>
                {success.length === 0 ? (
                    <Typography variant="body2" color="text.secondary">
                        无
                    </Typography>
                ) : (
                    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, maxHeight: 160, overflowY: 'auto' }}>
                        {success.slice(0, SHOWN_NAMES).map((s) => (
                            <Chip
                                key={s.deviceName}
                                size="small"
                                color="success"
                                variant="outlined"
                                label={s.deviceName}
                            />
                        ))}
                        {success.length > SHOWN_NAMES ? (
                            <Typography variant="body2" color="text.secondary" sx={{ alignSelf: 'center' }}>
                                等共 {success.length} 个
                            </Typography>
                        ) : null}
                    </Box>
                )}
            </Box>
            <Box component="section" aria-label="导入失败的设备">
                <Typography variant="subtitle2" gutterBottom>
                    导入失败（{failure.length}）
                </Typography>
                {failure.length === 0 ? (
                    <Typography variant="body2" color="text.secondary">
                        无
                    </Typography>
                ) : (
                    <TableContainer sx={{ maxHeight: 260 }}>
                        <Table size="small" stickyHeader aria-label="导入失败列表">
                            <TableHead>
                                <TableRow>
                                    {lines ? <TableCell sx={{ width: 72 }}>行号</TableCell> : null}
                                    <TableCell>DeviceName</TableCell>
                                    <TableCell>失败原因</TableCell>
                                </TableRow>
                            </TableHead>
                            <TableBody>
                                {failure.slice(0, SHOWN_FAILURES).map((f, i) => (
                                    <TableRow key={`${f.deviceName}-${i}`}>
                                        {lines ? <TableCell>{f.line ?? '-'}</TableCell> : null}
                                        <TableCell sx={{ wordBreak: 'break-all' }}>
                                            {f.deviceName || '（空）'}
                                        </TableCell>
                                        <TableCell>{f.msg}</TableCell>
                                    </TableRow>
                                ))}
                            </TableBody>
                        </Table>
                        {failure.length > SHOWN_FAILURES ? (
                            <Typography variant="body2" color="text.secondary" sx={{ p: 1 }}>
                                仅显示前 {SHOWN_FAILURES} 条，共 {failure.length} 条失败
                            </Typography>
                        ) : null}
                    </TableContainer>
                )}
            </Box>
        </Box>
    );
}
