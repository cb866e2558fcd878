import { useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import PlaylistAddIcon from '@mui/icons-material/PlaylistAdd';
import { Alert, Box, Button, Card, CardContent, Typography } from '@mui/material';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { Title, useDataProvider, useRecordContext } from 'react-admin';
import { batchRegisterSchema } from '../../../schemas/device';
// The engine's modules one by one: its index also re-exports the generated views, which stay in their own chunks.
import { useDefinition } from '../../engine/context';
import { FormDialog } from '../../engine/FormDialog';
import { DeleteRowButton, RowLink } from '../../engine/RowActions';
import { useUrlListController } from '../../engine/useUrlList';
import { DeviceCounts, ProductFilter, ToolbarRow } from './DeviceToolbar';
import { DeviceTable } from './DeviceTable';
import { DEVICES, usePlatform, useProducts, useRefreshDevices, useRefreshStatistics, type DeviceRow } from './hooks';

/** SPEC.md §9: the platform device page lists 10 a page, with 5, 10 and 20 offered. */
const PER_PAGE = 10;
const PER_PAGE_OPTIONS = [5, 10, 20];
const COLUMNS = ['deviceName', 'productName', 'status', 'remark', 'projectName', 'createTime', 'lastTime'];

function Actions(_props: { label?: string }) {
    const record = useRecordContext<DeviceRow>();
    const refreshStatistics = useRefreshStatistics();
    if (!record) return null;
    const detail = `/devInstanceDetail/${record.productId}/${record.deviceId}`;
    return (
        <Box sx={{ display: 'flex', gap: 0.25, alignItems: 'center' }}>
            <RowLink action={{ label: '查看', to: () => detail }} record={record} />
            {Number(record.nodeType) === 1 ? (
                <RowLink action={{ label: '子设备', to: () => `${detail}?child=true` }} record={record} />
            ) : null}
            <DeleteRowButton onDeleted={() => void refreshStatistics()} />
        </Box>
    );
}

interface BatchAnswer {
    count: number;
    deviceNames?: string[];
}

/**
 * /deviceInstance and /deviceInstance/{productId} (SPEC.md "Device management (deviceInstance)"): a product
 * filter whose choice is the path, counts, the device table, and the add and batch-add dialogs.
 */
export default function DeviceInstancePage() {
    const definition = useDefinition();
    const { id } = useParams();
    const [search] = useSearchParams();
    const navigate = useNavigate();
    const dataProvider = useDataProvider();
    const platform = usePlatform();
    const refresh = useRefreshDevices();
    const products = useProducts();
    const [dialog, setDialog] = useState<'add' | 'batch' | null>(null);

    const product = id ? products.data?.find((p) => String(p.productId) === id) : undefined;
    const unknownProduct = !!id && !!products.data && !product;
    const ready = !id || !!product;
    const list = useUrlListController({
        resource: DEVICES,
        perPage: PER_PAGE,
        filter: product ? { productKey: product.productKey } : {},
        enabled: ready,
        selectionKey: 'deviceInstance',
    });

    const chooseProduct = (productId: string) => {
        const next = new URLSearchParams();
        const perPage = search.get('perPage');
        if (perPage) next.set('perPage', perPage);
        const query = next.toString();
        navigate(`/deviceInstance${productId ? `/${productId}` : ''}${query ? `?${query}` : ''}`);
    };

    const locked = product ? ['productKey', 'productId'] : [];
    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title="设备管理" />
            <Card variant="outlined">
                <CardContent>
                    <Typography variant="h6" component="h1" sx={{ mb: 2 }}>
                        设备管理
                    </Typography>
                    <ToolbarRow>
                        <ProductFilter
                            products={products.data}
                            value={id ?? ''}
                            by="productId"
                            onChange={chooseProduct}
                            loading={products.isPending}
                        />
                        <DeviceCounts
                            productKey={product?.productKey}
                            show={['total', 'online']}
                            enabled={ready && !unknownProduct}
                        />
                        <Box sx={{ flex: 1 }} />
                        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog('add')}>
                            添加设备
                        </Button>
                        <Button variant="outlined" startIcon={<PlaylistAddIcon />} onClick={() => setDialog('batch')}>
                            批量添加
                        </Button>
                    </ToolbarRow>
                    {unknownProduct ? (
                        <Alert severity="warning">
                            未找到ID为 {id} 的产品，该产品不存在或已被删除。{' '}
                            <Link to="/deviceInstance">查看全部产品的设备</Link>
                        </Alert>
                    ) : (
                        <DeviceTable list={list} columns={COLUMNS} perPageOptions={PER_PAGE_OPTIONS}>
                            <Actions label="操作" />
                        </DeviceTable>
                    )}
                </CardContent>
            </Card>
            <FormDialog
                open={dialog === 'add'}
                onClose={() => setDialog(null)}
                title="添加设备"
                fields={['productKey', 'deviceName', 'remark', 'longitude', 'latitude', 'addr']}
                schema={definition.schema}
                defaultValues={{ productKey: product?.productKey ?? '' }}
                locked={locked}
                submit={(values) => dataProvider.create(DEVICES, { data: values })}
                success={definition.messages?.created}
                failure={definition.messages?.createFailed}
                onSuccess={() => void refresh()}
            />
            <FormDialog<BatchAnswer>
                open={dialog === 'batch'}
                onClose={() => setDialog(null)}
                title="批量添加"
                fields={['productId', 'amount']}
                schema={batchRegisterSchema}
                defaultValues={{ productId: product?.productId ?? '' }}
                locked={locked}
                submit={async (values) => (await platform.invoke<BatchAnswer>(DEVICES, 'batchRegister', values)).data}
                success={(answer) => `批量添加成功，共添加${answer?.count ?? 0}个设备`}
                onSuccess={() => void refresh()}
            />
        </Box>
    );
}
