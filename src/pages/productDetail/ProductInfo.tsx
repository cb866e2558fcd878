import { useState } from 'react';
import type { ReactNode } from 'react';
import { Box, Button, Stack, Typography } from '@mui/material';
import EditIcon from '@mui/icons-material/Edit';
import { DATA_TYPES } from '../../../schemas/product';
import { nodeTypeName } from './ProductHeader';
import { ProductEditDialog } from './ProductEditDialog';
import type { Product } from './types';

const dash = (v: unknown): ReactNode => (v === null || v === undefined || v === '' ? '-' : String(v));

/** 产品信息: every field of the product, and its edit dialog (name and description). */
export function ProductInfo({ product }: { product: Product }) {
    const [editing, setEditing] = useState(false);
    const isGateway = Number(product.nodeType) === 1;
    const viaGateway = Number(product.gatewayType) === 1;
    const items: Array<[string, ReactNode]> = [
        ['产品名称', dash(product.productName)],
        [
            'ProductKey',
            <span key="pk" style={{ fontFamily: 'monospace' }}>
                {product.productKey}
            </span>,
        ],
        ['节点类型', nodeTypeName(product.nodeType)],
        // Only a directly connected device answers the gateway question; a gateway's gatewayType is always 0.
        ['是否接入网关', isGateway ? '-' : viaGateway ? '是' : '否'],
        [viaGateway ? '网关接入协议' : '连网方式', dash(product.networkName ?? product.networkType)],
        ['数据格式', dash(DATA_TYPES.find((d) => d.id === Number(product.dataType))?.name)],
        ['所属分类', dash(product.categoryName)],
        ['所属项目', dash(product.projectName ?? product.projectCode)],
        ['创建时间', dash(product.createTime)],
        ['描述', dash(product.remark)],
    ];

    return (
        <Box>
            <Stack direction="row" alignItems="center" sx={{ mb: 2 }}>
                <Typography variant="subtitle1" sx={{ fontWeight: 600, flex: 1 }}>
                    产品信息
                </Typography>
                <Button startIcon={<EditIcon />} onClick={() => setEditing(true)}>
                    编辑
                </Button>
            </Stack>
            <Box
                component="dl"
                aria-label="产品信息"
                sx={{
                    m: 0,
                    display: 'grid',
                    gridTemplateColumns: { xs: '120px 1fr', md: '120px 1fr 120px 1fr' },
                    border: 1,
                    borderColor: 'divider',
                    borderRadius: 1,
                    overflow: 'hidden',
                    '& dt, & dd': { m: 0, px: 2, py: 1.25, borderBottom: 1, borderColor: 'divider' },
                    '& dt': { bgcolor: 'action.hover', color: 'text.secondary' },
                    '& dd': { wordBreak: 'break-all' },
                }}
            >
                {items.map(([label, value]) => (
                    <Box key={label} sx={{ display: 'contents' }}>
                        <Typography component="dt" variant="body2">
                            {label}
                        </Typography>
                        <Typography component="dd" variant="body2" aria-label={label}>
                            {value}
                        </Typography>
                    </Box>
                ))}
            </Box>
            {editing && <ProductEditDialog product={product} onClose={() => setEditing(false)} />}
        </Box>
    );
}
