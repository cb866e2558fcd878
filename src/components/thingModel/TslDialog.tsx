import { useId } from 'react';
import { useNotify } from 'react-admin';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, LinearProgress } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import type { ThingModel } from './model';
import { useInvoke } from './api';
import { copyText } from './copyText';

export interface TslDialogProps {
    productId: number;
    onClose: () => void;
}

/** 查看物模型: the product's whole thing model as TSL JSON, read-only, with copy. */
export function TslDialog({ productId, onClose }: TslDialogProps) {
    const titleId = useId();
    const notify = useNotify();
    const tsl = useInvoke<ThingModel | null>('products', 'thingModel', { productId }, null);
    const json = tsl.data ? JSON.stringify(tsl.data, null, 2) : '';

    const copy = async () => {
        const ok = await copyText(json);
        notify(ok ? '复制成功' : '复制失败，请手动选择复制', { type: ok ? 'success' : 'warning' });
    };

    return (
        <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>查看物模型（TSL）</DialogTitle>
            <DialogContent dividers>
                {tsl.isPending && <LinearProgress sx={{ height: 2 }} />}
                <Box
                    component="pre"
                    aria-label="物模型 JSON"
                    sx={{
                        m: 0,
                        p: 2,
                        maxHeight: '60vh',
                        overflow: 'auto',
                        bgcolor: 'grey.100',
                        borderRadius: 1,
                        fontSize: 12,
                        fontFamily: 'monospace',
                    }}
                >
                    {json}
                </Box>
            </DialogContent>
            <DialogActions>
                <Button startIcon={<ContentCopyIcon />} onClick={copy} disabled={!json}>
                    复制
                </Button>
                <Button variant="contained" onClick={onClose}>
                    关闭
                </Button>
            </DialogActions>
        </Dialog>
    );
}
