import { useRef, useState } from 'react';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { Box, Button, FormHelperText, Typography } from '@mui/material';
import { useInput } from 'react-admin';
import type { EngineInputProps } from './fieldView';
import type { FieldDefinition } from '../types';

export type FileInputProps = EngineInputProps;

export function fileSize(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const limit = (bytes: number) =>
    bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024}MB` : bytes % 1024 === 0 ? `${bytes / 1024}KB` : `${bytes}B`;

/** What the browser can refuse before anything is sent; the server checks the same and more. */
export function fileProblem(file: File, spec: FieldDefinition['file']): string | undefined {
    const accept = spec?.accept ?? [];
    const ext = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
    if (accept.length > 0 && !accept.some((a) => a.toLowerCase() === ext)) {
        return spec?.refusals?.type ?? `仅支持${accept.map((a) => a.toUpperCase()).join('、')}格式的文件`;
    }
    if (file.size === 0) return spec?.refusals?.empty ?? '文件为空，请重新选择';
    if (spec?.maxSize !== undefined && file.size > spec.maxSize)
        return spec.refusals?.size ?? `文件大小不能超过${limit(spec.maxSize)}`;
    return undefined;
}

/** A file chooser (input 'file'): the value is the File; a refused file is not taken and the reason is shown. */
export function FileInput({ source, label, field, isRequired, helperText, disabled, onChange }: FileInputProps) {
    const { field: input, fieldState, id } = useInput({ source, isRequired, onChange, format: (v) => v ?? null });
    const box = useRef<HTMLInputElement>(null);
    const [problem, setProblem] = useState<string>();
    const file = input.value instanceof File ? input.value : null;
    const accept = field.file?.accept?.map((a) => `.${a}`).join(',');
    const message = problem ?? fieldState.error?.message;

    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }}>
            <Typography component="label" htmlFor={id} variant="subtitle2" sx={{ display: 'block', mb: 0.5 }}>
                {label}
                {isRequired ? ' *' : ''}
            </Typography>
            <input
                ref={box}
                id={id}
                type="file"
                hidden
                accept={accept}
                disabled={disabled}
                onChange={(e) => {
                    const chosen = e.target.files?.[0];
                    e.target.value = '';
                    if (!chosen) return;
                    const refused = fileProblem(chosen, field.file);
                    setProblem(refused);
                    if (!refused) input.onChange(chosen);
                    input.onBlur();
                }}
            />
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
                <Button
                    variant="outlined"
                    size="small"
                    startIcon={<AttachFileIcon />}
                    disabled={disabled}
                    onClick={() => box.current?.click()}
                >
                    {file ? '重新选择' : '选择文件'}
                </Button>
                <Typography
                    variant="body2"
                    color={file ? 'text.primary' : 'text.secondary'}
                    sx={{ overflowWrap: 'anywhere' }}
                >
                    {file ? `${file.name}（${fileSize(file.size)}）` : '未选择文件'}
                </Typography>
            </Box>
            <FormHelperText error={!!message}>
                {message ??
                    helperText ??
                    [
                        field.file?.accept?.length ? `支持 ${field.file.accept.join('、')}` : '',
                        field.file?.maxSize ? `不超过 ${limit(field.file.maxSize)}` : '',
                    ]
                        .filter(Boolean)
                        .join('，')}
            </FormHelperText>
        </Box>
    );
}
