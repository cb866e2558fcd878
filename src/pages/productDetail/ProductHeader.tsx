import { useNotify } from 'react-admin';
import { Box, Chip, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { NODE_TYPES } from '../../../schemas/product';
import { copyText } from '../../components/thingModel/copyText';
import type { Product } from './types';

export function nodeTypeName(nodeType: number | null | undefined): string {
    return NODE_TYPES.find((n) => n.id === Number(nodeType))?.name ?? '-';
}

/** Product name, ProductKey with copy, and node type. */
export function ProductHeader({ product }: { product: Product }) {
    const notify = useNotify();
    const copy = async () => {
        const ok = await copyText(product.productKey);
        notify(ok ? '复制成功' : '复制失败，请手动选择复制', { type: ok ? 'success' : 'warning' });
    };

    return (
        <Box sx={{ mb: 2 }}>
            <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
                {product.productName}
            </Typography>
            <Stack direction="row" spacing={3} alignItems="center" sx={{ flexWrap: 'wrap' }}>
                <Stack direction="row" spacing={0.5} alignItems="center">
                    <Typography color="text.secondary">ProductKey：</Typography>
                    <Typography sx={{ fontFamily: 'monospace' }} data-testid="product-key">
                        {product.productKey}
                    </Typography>
                    <Tooltip title="复制 ProductKey">
                        <IconButton size="small" aria-label="复制 ProductKey" onClick={copy}>
                            <ContentCopyIcon fontSize="inherit" />
                        </IconButton>
                    </Tooltip>
                </Stack>
                <Stack direction="row" spacing={0.5} alignItems="center">
                    <Typography color="text.secondary">节点类型：</Typography>
                    <Chip size="small" label={nodeTypeName(product.nodeType)} />
                </Stack>
            </Stack>
        </Box>
    );
}
