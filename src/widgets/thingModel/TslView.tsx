import { Box, Button, LinearProgress, Stack } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { copyText } from '../../engine/actions';
import { useToast } from '../../engine/actions/shared';
import { useCall } from '../../engine/calls';
import type { WidgetProps } from '../registry';

/** thingModelTsl: a product's whole thing model as TSL JSON, read-only, with 复制 and 关闭 ({ productId }). */
export default function TslView({ scope, productId, onClose }: WidgetProps) {
    const toast = useToast();
    const tsl = useCall<unknown>({ resource: 'products', call: 'thingModel', params: () => ({ productId }) }, scope);
    const json = tsl.data ? JSON.stringify(tsl.data, null, 2) : '';
    const copy = async () => {
        const ok = await copyText(json);
        toast(ok ? '复制成功' : '复制失败，请手动选择复制', ok ? 'success' : 'error');
    };
    return (
        <Stack spacing={1.5}>
            {tsl.isPending ? <LinearProgress sx={{ height: 2 }} aria-label="加载中" /> : null}
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
                {tsl.error ? `加载失败：${(tsl.error as Error).message || '查询失败'}` : json}
            </Box>
            <Stack direction="row" spacing={1} justifyContent="flex-end">
                <Button startIcon={<ContentCopyIcon />} onClick={() => void copy()} disabled={!json}>
                    复制
                </Button>
                <Button variant="contained" onClick={onClose}>
                    关闭
                </Button>
            </Stack>
        </Stack>
    );
}
