import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import {
    Alert,
    Box,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogContentText,
    DialogTitle,
    LinearProgress,
    Link,
    Stack,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TablePagination,
    TableRow,
    Typography,
} from '@mui/material';
import UploadIcon from '@mui/icons-material/Upload';
import { FILE_MESSAGES, FILE_PAGE_SIZE, FILE_RULE_TEXT } from '../../../schemas/deviceFile';
import { useSay } from './DeviceInfo';
import { FileUploadDialog, humanSize } from './FileUploadDialog';
import type { DeviceFile, DeviceTabProps } from './types';
import { DETAIL, deviceKey, errorText, useCallUrl, usePlatform } from './useDevice';

interface FilePage {
    records: DeviceFile[];
    total: number;
}

/** The page of the file list lives in the URL (`page`), beside the tab (`checkIdx`). */
function usePage(): [number, (page: number) => void] {
    const [search, setSearch] = useSearchParams();
    const raw = Number(search.get('page'));
    const page = Number.isInteger(raw) && raw > 0 ? raw : 1;
    const setPage = (next: number) =>
        setSearch(
            (current) => {
                const params = new URLSearchParams(current);
                if (next > 1) params.set('page', String(next));
                else params.delete('page');
                return params;
            },
            { replace: true },
        );
    return [page, setPage];
}

/** 文件管理: the device's files (10 a page), upload with progress, download, delete after confirmation. */
export function FilesTab({ device }: DeviceTabProps) {
    const platform = usePlatform();
    const callUrl = useCallUrl();
    const say = useSay();
    const [page, setPage] = usePage();
    const [uploading, setUploading] = useState(false);
    const [deleting, setDeleting] = useState<DeviceFile | null>(null);
    const [busy, setBusy] = useState(false);

    const files = useQuery({
        queryKey: [...deviceKey(device.deviceId), 'files', page],
        queryFn: async () =>
            (
                await platform.invoke<FilePage>(DETAIL, 'files', {
                    deviceId: device.deviceId,
                    pageNumber: page,
                    pageSize: FILE_PAGE_SIZE,
                })
            ).data,
        placeholderData: keepPreviousData,
        retry: false,
    });
    const records = files.data?.records ?? [];
    const total = files.data?.total ?? 0;

    const remove = async () => {
        if (!deleting) return;
        setBusy(true);
        try {
            await platform.invoke(DETAIL, 'deleteFile', { fileId: deleting.fileId });
            say(FILE_MESSAGES.deleted);
            // The last row of a page beyond the first: step back one page.
            if (records.length === 1 && page > 1) setPage(page - 1);
            else void files.refetch();
        } catch (error) {
            say(errorText(error, '删除失败'), 'error');
        } finally {
            setBusy(false);
            setDeleting(null);
        }
    };

    return (
        <Box>
            <Stack direction="row" alignItems="center" spacing={2} sx={{ mb: 2, flexWrap: 'wrap', rowGap: 1 }}>
                <Button variant="contained" startIcon={<UploadIcon />} onClick={() => setUploading(true)}>
                    上传文件
                </Button>
                <Typography variant="body2" color="text.secondary">
                    {FILE_RULE_TEXT}
                </Typography>
            </Stack>
            {files.isFetching ? <LinearProgress aria-label="文件列表加载中" sx={{ height: 2 }} /> : null}
            {files.error ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" onClick={() => void files.refetch()}>
                            重试
                        </Button>
                    }
                >
                    文件列表加载失败：{errorText(files.error, '查询失败')}
                </Alert>
            ) : (
                <TableContainer>
                    <Table size="small" aria-label="文件列表" sx={{ minWidth: 640 }}>
                        <TableHead>
                            <TableRow>
                                <TableCell sx={{ width: 90 }}>文件ID</TableCell>
                                <TableCell>文件名称</TableCell>
                                <TableCell sx={{ width: 110 }}>文件大小</TableCell>
                                <TableCell sx={{ width: 180 }}>上传时间</TableCell>
                                <TableCell sx={{ width: 130 }}>操作</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {records.map((f) => (
                                <TableRow key={f.fileId} hover>
                                    <TableCell>{f.fileId}</TableCell>
                                    <TableCell sx={{ wordBreak: 'break-all' }}>{f.fileName}</TableCell>
                                    <TableCell>{humanSize(f.size)}</TableCell>
                                    <TableCell>{f.createTime ?? '-'}</TableCell>
                                    <TableCell>
                                        <Stack direction="row" spacing={1.5}>
                                            <Link
                                                href={callUrl('downloadFile', { fileId: f.fileId })}
                                                download={f.fileName}
                                                underline="hover"
                                                aria-label={`下载 ${f.fileName}`}
                                            >
                                                下载
                                            </Link>
                                            <Link
                                                component="button"
                                                color="error"
                                                underline="hover"
                                                onClick={() => setDeleting(f)}
                                                aria-label={`删除 ${f.fileName}`}
                                            >
                                                删除
                                            </Link>
                                        </Stack>
                                    </TableCell>
                                </TableRow>
                            ))}
                            {!files.isPending && records.length === 0 ? (
                                <TableRow>
                                    <TableCell colSpan={5} align="center" sx={{ py: 4 }}>
                                        <Typography color="text.secondary">暂无文件，点击“上传文件”添加。</Typography>
                                    </TableCell>
                                </TableRow>
                            ) : null}
                        </TableBody>
                    </Table>
                </TableContainer>
            )}
            {total > 0 ? (
                <TablePagination
                    component="div"
                    count={total}
                    page={page - 1}
                    rowsPerPage={FILE_PAGE_SIZE}
                    rowsPerPageOptions={[FILE_PAGE_SIZE]}
                    onPageChange={(_, next) => setPage(next + 1)}
                    labelDisplayedRows={({ from, to, count }) => `第 ${from}-${to} 条，共 ${count} 条`}
                    labelRowsPerPage="每页条数"
                />
            ) : null}
            <FileUploadDialog
                open={uploading}
                deviceId={device.deviceId}
                onClose={() => setUploading(false)}
                onUploaded={() => (page > 1 ? setPage(1) : void files.refetch())}
            />
            <Dialog
                open={!!deleting}
                onClose={busy ? undefined : () => setDeleting(null)}
                aria-labelledby="file-delete-title"
            >
                <DialogTitle id="file-delete-title">提示</DialogTitle>
                <DialogContent>
                    <DialogContentText>
                        {FILE_MESSAGES.deleteConfirm}
                        <br />
                        {deleting?.fileName}
                    </DialogContentText>
                </DialogContent>
                <DialogActions>
                    <Button onClick={() => setDeleting(null)} disabled={busy}>
                        取消
                    </Button>
                    <Button color="error" variant="contained" onClick={() => void remove()} disabled={busy}>
                        {busy ? '删除中…' : '删除'}
                    </Button>
                </DialogActions>
            </Dialog>
        </Box>
    );
}
