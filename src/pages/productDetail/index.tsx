import { useGetOne, useBasename, Link } from 'react-admin';
import {
    Alert,
    AlertTitle,
    Box,
    Button,
    Breadcrumbs,
    Card,
    CardContent,
    LinearProgress,
    Tab,
    Tabs,
    Typography,
} from '@mui/material';
import { ThingModelEditor } from '../../components/thingModel/ThingModelEditor';
import { TopicTable } from '../../components/thingModel/TopicTable';
import { ProductHeader } from './ProductHeader';
import { ProductInfo } from './ProductInfo';
import { useProductRoute } from './useProductRoute';
import { TABS, TAB_LABELS, type Product } from './types';

/** /productDetail: a product's information, its topics and its thing model, one bookmarkable tab each. */
export default function ProductDetailPage() {
    const { tab, productId, rawProductId, goTo } = useProductRoute();
    const basename = useBasename();
    const {
        data: product,
        isPending,
        error,
        refetch,
    } = useGetOne<Product>('products', { id: productId ?? 0 }, { enabled: productId !== null, retry: false });

    return (
        <Box sx={{ p: { xs: 1, md: 2 }, minWidth: 0 }}>
            <Breadcrumbs aria-label="breadcrumb" sx={{ mb: 2 }}>
                <Link to={`${basename}/product`} underline="hover" color="inherit">
                    产品管理
                </Link>
                <Typography color="text.primary">产品详情</Typography>
            </Breadcrumbs>
            {productId === null ? (
                <NotFound text={rawProductId ? `产品ID“${rawProductId}”无效` : '缺少产品ID'} />
            ) : error ? (
                <LoadError error={error} productId={productId} onRetry={() => void refetch()} />
            ) : isPending || !product ? (
                <LinearProgress aria-label="加载中" />
            ) : (
                <Card variant="outlined">
                    <CardContent>
                        <ProductHeader product={product} />
                        <Tabs
                            value={tab}
                            onChange={(_, next) => goTo(next)}
                            aria-label="产品详情"
                            variant="scrollable"
                            allowScrollButtonsMobile
                            sx={{
                                borderBottom: 1,
                                borderColor: 'divider',
                                mb: 2,
                                '& .MuiTab-root': { textTransform: 'none' },
                            }}
                        >
                            {TABS.map((t) => (
                                <Tab key={t} value={t} label={TAB_LABELS[t]} />
                            ))}
                        </Tabs>
                        {tab === 'view' && <ProductInfo product={product} />}
                        {tab === 'topic' && <TopicTable productKey={product.productKey} />}
                        {tab === 'function' && (
                            <ThingModelEditor
                                product={{
                                    productId: product.productId ?? productId,
                                    productKey: product.productKey,
                                    categoryId: product.categoryId,
                                }}
                            />
                        )}
                    </CardContent>
                </Card>
            )}
        </Box>
    );
}

function BackLink() {
    const basename = useBasename();
    return <Link to={`${basename}/product`}>返回产品管理</Link>;
}

function NotFound({ text }: { text: string }) {
    return (
        <Alert severity="warning">
            <AlertTitle>产品不存在</AlertTitle>
            {text}，该产品不存在或已被删除。 <BackLink />
        </Alert>
    );
}

function LoadError({ error, productId, onRetry }: { error: unknown; productId: number; onRetry: () => void }) {
    const status = (error as { status?: number }).status;
    const message = error instanceof Error ? error.message : '';
    if (status === 404 || /不存在/.test(message)) return <NotFound text={`未找到ID为 ${productId} 的产品`} />;
    return (
        <Alert
            severity="error"
            action={
                <Button color="inherit" size="small" onClick={onRetry}>
                    重试
                </Button>
            }
        >
            <AlertTitle>产品详情加载失败</AlertTitle>
            {message || '系统错误'}。 <BackLink />
        </Alert>
    );
}
