import { useRef, useState } from 'react';
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
    Typography,
} from '@mui/material';
import { FILE_EXTENSIONS, FILE_MESSAGES, FILE_RULE_TEXT, fileProblem } from '../../../schemas/deviceFile';
import { useSay } from './DeviceInfo';
import { DETAIL, errorText, usePlatform } from './useDevice';

export function humanSize(bytes: number): string {
    if (!Number.isFinite(bytes) || bytes < 0) return '-';
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

interface FileUploadDialogProps {
    open: boolean;
    deviceId: number;
    onClose: () => void;
    onUploaded: () => void;
}

/**
 * 上传文件: the limits stated up front, a refusal (schemas/deviceFile.ts fileProblem) before anything is sent, then
 * the upload with its real progress. A refusal from the server is shown and the dialog stays open.
 */
export function FileUploadDialog({ open, deviceId, onClose, onUploaded }: FileUploadDialogProps) {
    const platform = usePlatform();
    const say = useSay();
    const input = useRef<HTMLInputElement>(null);
    const [file, setFile] = useState<File | null>(null);
    const [problem, setProblem] = useState<string | null>(null);
    const [progress, setProgress] = useState<number | null>(null);
    const uploading = progress !== null;

    const reset = () => {
        setFile(null);
        setProblem(null);
        setProgress(null);
        if (input.current) input.current.value = '';
    };
    const close = () => {
        if (uploading) return;
        reset();
        onClose();
    };

    const choose = (chosen: File | null) => {
        setFile(chosen);
        setProblem(chosen ? (fileProblem(chosen) ?? null) : null);
    };

    const upload = async () => {
        if (!file) {
            setProblem(FILE_MESSAGES.required);
            return;
        }
        const refused = fileProblem(file);
        if (refused) {
            setProblem(refused);
            return;
        }
        setProblem(null);
        setProgress(0);
        try {
            await platform.invoke(DETAIL, 'uploadFile', { deviceId, file }, { onProgress: setProgress });
            say(FILE_MESSAGES.uploaded);
            onUploaded();
            reset();
            onClose();
        } catch (error) {
            setProgress(null);
            setProblem(errorText(error, '文件上传失败'));
        }
    };

    const percent = Math.round((progress ?? 0) * 100);
    return (
        <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="file-upload-title">
            <DialogTitle id="file-upload-title">上传文件</DialogTitle>
            <DialogContent>
                <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
                    <Typography variant="body2" color="text.secondary" data-testid="file-rule">
                        {FILE_RULE_TEXT}
                    </Typography>
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
                                accept={FILE_EXTENSIONS.map((e) => `.${e}`).join(',')}
                                aria-label="选择文件"
                                onChange={(e) => choose(e.target.files?.[0] ?? null)}
                            />
                        </Button>
                        <Typography variant="body2" sx={{ wordBreak: 'break-all' }} data-testid="upload-file-name">
                            {file ? `${file.name}（${humanSize(file.size)}）` : '未选择文件'}
                        </Typography>
                    </Box>
                    {uploading ? (
                        <Box>
                            <LinearProgress
                                variant={(progress ?? 0) < 1 ? 'determinate' : 'indeterminate'}
                                value={percent}
                                aria-label="上传进度"
                            />
                            <Typography variant="body2" sx={{ mt: 0.5 }}>
                                {(progress ?? 0) < 1 ? `上传中 ${percent}%` : '上传完成，正在保存…'}
                            </Typography>
                        </Box>
                    ) : null}
                    {problem ? (
                        <Alert severity="error" role="alert">
                            {problem}
                        </Alert>
                    ) : null}
                </Box>
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={close} disabled={uploading}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void upload()} disabled={uploading}>
                    {uploading ? '上传中…' : '上传'}
                </Button>
            </DialogActions>
        </Dialog>
    );
}
