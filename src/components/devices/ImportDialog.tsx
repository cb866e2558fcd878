import { useRef, useState } from 'react';
import DownloadIcon from '@mui/icons-material/Download';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
    Alert,
    Box,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    LinearProgress,
    MenuItem,
    TextField,
    Typography,
} from '@mui/material';
import { useDataProvider, useNotify, type DataProvider } from 'react-admin';
import type { PlatformDataProviderMethods } from '../../../dataProvider/types';
import { IMPORT_COLUMNS, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '../../../schemas/device';
import { ImportResultView, type ImportResult } from './ImportResult';

interface ProductChoice {
    productKey: string;
    productName: string;
}

interface ImportDialogProps {
    open: boolean;
    onClose: () => void;
    /** The resource whose custom call `importFile` (multipart productKey, file) is used. */
    resource: string;
    products: ProductChoice[];
    defaultProductKey?: string;
    /** URL of the CSV template (a GET the browser follows itself). */
    templateUrl: string;
    onImported: () => void;
}

const MAX_MB = Math.round(IMPORT_MAX_BYTES / 1024 / 1024);

function fileSize(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Refusals the browser can make before sending anything; the server checks the same and more. */
function localProblem(file: File): string | null {
    if (!/\.csv$/i.test(file.name)) return '仅支持CSV格式的文件（.csv）';
    if (file.size === 0) return '文件为空，请按模板填写后上传';
    if (file.size > IMPORT_MAX_BYTES) return `文件大小不能超过${MAX_MB}MB`;
    return null;
}

type Phase = 'choose' | 'uploading' | 'done';

/**
 * Bulk import (SPEC.md "Devices"): a product, the CSV template, a file, an upload with real progress, then the
 * server's success and failure lists. A refused file shows the server's message and leaves the dialog open.
 */
export function ImportDialog(props: ImportDialogProps) {
    const { open, onClose, resource, products, defaultProductKey, templateUrl, onImported } = props;
    const dataProvider = useDataProvider<DataProvider & PlatformDataProviderMethods>();
    const notify = useNotify();
    const input = useRef<HTMLInputElement>(null);
    const [productKey, setProductKey] = useState(defaultProductKey ?? '');
    const [file, setFile] = useState<File | null>(null);
    const [phase, setPhase] = useState<Phase>('choose');
    const [progress, setProgress] = useState(0);
    const [problem, setProblem] = useState<string | null>(null);
    const [result, setResult] = useState<ImportResult | null>(null);
    const [lastKey, setLastKey] = useState(defaultProductKey);

    // The dialog opens on the product the screen is filtered to.
    if (defaultProductKey !== lastKey) {
        setLastKey(defaultProductKey);
        setProductKey(defaultProductKey ?? '');
    }

    const say = (text: string, type: 'success' | 'error' | 'warning') =>
        notify(text, { type, messageArgs: { _: text } });

    const reset = () => {
        setFile(null);
        setPhase('choose');
        setProgress(0);
        setProblem(null);
        setResult(null);
        if (input.current) input.current.value = '';
    };

    const close = () => {
        if (phase === 'uploading') return;
        reset();
        onClose();
    };

    const upload = async () => {
        if (!productKey) return say('请选择产品!', 'warning');
        if (!file) return say('请选择要上传的CSV文件', 'warning');
        const local = localProblem(file);
        if (local) {
            setProblem(local);
            return say(local, 'error');
        }
        setProblem(null);
        setProgress(0);
        setPhase('uploading');
        try {
            const { data } = await dataProvider.invoke<ImportResult>(
                resource,
                'importFile',
                { productKey, file },
                { onProgress: setProgress },
            );
            setResult({ success: data?.success ?? [], failure: data?.failure ?? [] });
            setPhase('done');
            say('文件上传成功!', 'success');
            onImported();
        } catch (error) {
            const text = (error instanceof Error && error.message) || '文件上传失败';
            setProblem(text);
            setPhase('choose');
            say(text, 'error');
        }
    };

    const uploading = phase === 'uploading';
    const percent = Math.round(progress * 100);
    return (
        <Dialog open={open} onClose={close} fullWidth maxWidth="md" aria-labelledby="device-import-title">
            <DialogTitle id="device-import-title">批量导入</DialogTitle>
            <DialogContent>
                {phase === 'done' && result ? (
                    <ImportResultView result={result} />
                ) : (
                    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
                        <TextField
                            select
                            required
                            label="产品"
                            value={productKey}
                            onChange={(e) => setProductKey(e.target.value)}
                            disabled={uploading}
                            size="small"
                        >
                            {products.map((p) => (
                                <MenuItem key={p.productKey} value={p.productKey}>
                                    {p.productName}
                                </MenuItem>
                            ))}
                        </TextField>
                        <Box>
                            <Button
                                component="a"
                                href={templateUrl}
                                download="设备导入模板.csv"
                                startIcon={<DownloadIcon />}
                                size="small"
                            >
                                下载模板
                            </Button>
                            <Typography variant="body2" color="text.secondary" component="span" sx={{ ml: 1 }}>
                                列：{IMPORT_COLUMNS.join(', ')}（仅 deviceName 必填）
                            </Typography>
                        </Box>
                        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
                            <Button
                                variant="outlined"
                                component="label"
                                startIcon={<UploadFileIcon />}
                                disabled={uploading}
                            >
                                选择文件
                                <input
                                    ref={input}
                                    hidden
                                    type="file"
                                    accept=".csv,text/csv"
                                    aria-label="选择CSV文件"
                                    onChange={(e) => {
                                        setFile(e.target.files?.[0] ?? null);
                                        setProblem(null);
                                    }}
                                />
                            </Button>
                            <Typography variant="body2" data-testid="import-file-name">
                                {file ? `${file.name}（${fileSize(file.size)}）` : '未选择文件'}
                            </Typography>
                        </Box>
                        <Typography variant="caption" color="text.secondary">
                            仅支持CSV文件（UTF-8编码），大小不超过{MAX_MB}MB，最多
                            {IMPORT_MAX_ROWS.toLocaleString('zh-CN')}行；校验不通过的行不会写入，其余行正常导入。
                        </Typography>
                        {uploading ? (
                            <Box>
                                <LinearProgress
                                    variant={progress < 1 ? 'determinate' : 'indeterminate'}
                                    value={percent}
                                    aria-label="上传进度"
                                />
                                <Typography variant="body2" sx={{ mt: 0.5 }}>
                                    {progress < 1 ? `上传中 ${percent}%` : '上传完成，正在校验并写入…'}
                                </Typography>
                            </Box>
                        ) : null}
                        {problem ? <Alert severity="error">{problem}</Alert> : null}
                    </Box>
                )}
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                {phase === 'done' ? (
                    <>
                        <Button onClick={reset}>继续导入</Button>
                        <Button variant="contained" onClick={close}>
                            完成
                        </Button>
                    </>
                ) : (
                    <>
                        <Button onClick={close} disabled={uploading}>
                            取消
                        </Button>
                        <Button variant="contained" onClick={() => void upload()} disabled={uploading}>
                            {uploading ? '上传中…' : '上传'}
                        </Button>
                    </>
                )}
            </DialogActions>
        </Dialog>
    );
}
