import { Box, LinearProgress, Typography } from '@mui/material';
import { inputKindOf } from './fields';
import type { FieldDefinition } from './types';

/** Whether a form's inputs hold a file: then its submit reports how far the file has travelled. */
export const holdsFile = (inputs: Array<[string, FieldDefinition]>) =>
    inputs.some(([, f]) => inputKindOf(f) === 'file');

/**
 * The bar a form with a file shows while it is sent (the upload action's own look): 上传进度 at the share of the
 * body sent, and 上传中 N% under it.
 */
export function UploadProgress({ fraction }: { fraction: number }) {
    const percent = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
    return (
        <Box sx={{ mt: 1 }}>
            <LinearProgress variant="determinate" value={percent} aria-label="上传进度" />
            <Typography variant="caption" color="text.secondary">
                上传中 {percent}%
            </Typography>
        </Box>
    );
}
