import { useId, useRef, useState } from 'react';
import {
    Alert,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    Stack,
    Table,
    TableBody,
    TableCell,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import type { ThingModel } from './model';
import { errorMessage, useInvoke, usePlatformDataProvider } from './api';

export interface ImportDialogProps {
    productId: number;
    productKey?: string;
    onClose: () => void;
    onImported: () => void;
}

const SECTIONS = [
    ['properties', '属性'],
    ['events', '事件'],
    ['services', '服务'],
] as const;

/** Reads a file's text; File.text() is missing in some environments, FileReader is everywhere. */
function readText(file: File): Promise<string> {
    if (typeof file.text === 'function') return file.text();
    return new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result ?? ''));
        reader.onerror = () => reject(reader.error);
        reader.readAsText(file);
    });
}

/** Parses a thing-model file, or says in Chinese why it is not one. */
export function parseThingModel(text: string): { model?: ThingModel; error?: string } {
    let raw: unknown;
    try {
        raw = JSON.parse(text);
    } catch {
        return { error: '文件不是有效的 JSON，请检查文件内容' };
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: '文件内容不是物模型对象' };
    const obj = raw as Record<string, unknown>;
    if (!SECTIONS.some(([key]) => key in obj))
        return { error: '文件中没有 properties、events 或 services，不是物模型文件' };
    for (const [key, label] of SECTIONS) {
        if (key in obj && !Array.isArray(obj[key])) return { error: `物模型的 ${key}（${label}）必须是数组` };
    }
    return {
        model: {
            ...obj,
            properties: (obj.properties as ThingModel['properties']) ?? [],
            events: (obj.events as ThingModel['events']) ?? [],
            services: (obj.services as ThingModel['services']) ?? [],
        },
    };
}

/** 导入物模型: choose a JSON file, see what it replaces, confirm; nothing changes until the server accepts it. */
export function ImportDialog({ productId, productKey, onClose, onImported }: ImportDialogProps) {
    const titleId = useId();
    const inputRef = useRef<HTMLInputElement>(null);
    const dataProvider = usePlatformDataProvider();
    const current = useInvoke<ThingModel | null>('thingFunctions', 'export', { productId }, null);
    const [file, setFile] = useState<{ name: string; model?: ThingModel; error?: string } | null>(null);
    const [serverError, setServerError] = useState<string | null>(null);
    const [importing, setImporting] = useState(false);

    const choose = async (chosen: File | undefined) => {
        setServerError(null);
        if (!chosen) return;
        try {
            setFile({ name: chosen.name, ...parseThingModel(await readText(chosen)) });
        } catch {
            setFile({ name: chosen.name, error: '无法读取文件' });
        }
    };

    const confirm = async () => {
        if (!file?.model) return;
        setImporting(true);
        setServerError(null);
        try {
            await dataProvider.invoke('thingFunctions', 'import', { productId, thingModel: file.model });
            onImported();
        } catch (error) {
            setServerError(errorMessage(error, '导入失败'));
        } finally {
            setImporting(false);
        }
    };

    const count = (model: ThingModel | null | undefined, key: (typeof SECTIONS)[number][0]) =>
        Array.isArray(model?.[key]) ? model[key].length : 0;
    const fileKey = file?.model?.profile?.productKey;

    return (
        <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>导入物模型</DialogTitle>
            <DialogContent dividers>
                <Stack spacing={2}>
                    <Typography variant="body2" color="text.secondary">
                        选择物模型 JSON 文件（可由“导出物模型”得到）。导入会替换该产品当前的全部功能定义。
                    </Typography>
                    <Stack direction="row" spacing={2} alignItems="center">
                        <Button
                            variant="outlined"
                            startIcon={<UploadFileIcon />}
                            onClick={() => inputRef.current?.click()}
                        >
                            选择文件
                        </Button>
                        <Typography variant="body2" noWrap>
                            {file?.name ?? '未选择文件'}
                        </Typography>
                        <input
                            ref={inputRef}
                            type="file"
                            accept=".json,application/json"
                            hidden
                            data-testid="thing-model-file"
                            onChange={(e) => {
                                void choose(e.target.files?.[0]);
                                e.target.value = '';
                            }}
                        />
                    </Stack>
                    {file?.error && <Alert severity="error">{file.error}</Alert>}
                    {serverError && <Alert severity="error">{serverError}</Alert>}
                    {file?.model && (
                        <>
                            <Alert severity="warning">
                                导入将替换当前物模型：现有的{' '}
                                {SECTIONS.map(([k, l]) => `${l} ${count(current.data, k)} 个`).join('、')}
                                将被删除，替换为文件中的{' '}
                                {SECTIONS.map(([k, l]) => `${l} ${count(file.model, k)} 个`).join('、')}。
                            </Alert>
                            {fileKey && productKey && fileKey !== productKey && (
                                <Alert severity="info">该文件导出自另一产品（ProductKey: {fileKey}）</Alert>
                            )}
                            <Table size="small" aria-label="导入对比">
                                <TableHead>
                                    <TableRow>
                                        <TableCell>功能类型</TableCell>
                                        <TableCell align="right">当前</TableCell>
                                        <TableCell align="right">导入后</TableCell>
                                    </TableRow>
                                </TableHead>
                                <TableBody>
                                    {SECTIONS.map(([key, label]) => (
                                        <TableRow key={key}>
                                            <TableCell>{label}</TableCell>
                                            <TableCell align="right">{count(current.data, key)}</TableCell>
                                            <TableCell align="right">{count(file.model, key)}</TableCell>
                                        </TableRow>
                                    ))}
                                </TableBody>
                            </Table>
                        </>
                    )}
                </Stack>
            </DialogContent>
            <DialogActions>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" color="warning" onClick={confirm} disabled={!file?.model || importing}>
                    确认导入
                </Button>
            </DialogActions>
        </Dialog>
    );
}
