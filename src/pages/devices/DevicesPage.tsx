import { useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { useQueryClient } from '@tanstack/react-query';
import { Box, Button, Card, CardContent, Tab, Tabs, Typography } from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import { Title, useRecordContext, type RaRecord } from 'react-admin';
import { saveDeviceSchema } from '../../../resources/devices';
import { ImportDialog } from '../../components/devices/ImportDialog';
import { useDefinition } from '../../engine/context';
import { FormDialog } from '../../engine/FormDialog';
import { DeleteRowButton, RowLink } from '../../engine/RowActions';
import { useUrlListController } from '../../engine/useUrlList';
import { BindButtons, RemoveFromProjectButton } from './BindButtons';
import { DeviceCounts, ProductFilter, ToolbarRow } from './DeviceToolbar';
import { DeviceTable } from './DeviceTable';
import { EnableSwitch } from './EnableSwitch';
import {
    DEVICES,
    useCallUrl,
    usePlatform,
    useProducts,
    useRefreshDevices,
    useRefreshStatistics,
    type DeviceRow,
} from './hooks';
import { VideoTab } from './VideoTab';

/** SPEC.md §9: device management lists 5 a page, with 5, 10 and 20 offered. */
const PER_PAGE = 5;
const PER_PAGE_OPTIONS = [5, 10, 20];
const COLUMNS = ['deviceName', 'productName', 'status', 'projectName', 'remark', 'createTime', 'lastTime'];

function Actions(_props: { label?: string }) {
    const record = useRecordContext<DeviceRow>();
    const refreshStatistics = useRefreshStatistics();
    const refresh = useRefreshDevices();
    if (!record) return null;
    const detail =
        `/devices/${encodeURIComponent(record.productKey)}/${encodeURIComponent(record.deviceName)}` +
        `?devicesId=${encodeURIComponent(String(record.deviceId))}`;
    return (
        <Box sx={{ display: 'flex', gap: 0.25, alignItems: 'center' }}>
            <RowLink action={{ label: '查看', to: () => detail }} record={record} />
            <RemoveFromProjectButton device={record} onRemoved={() => void refresh()} />
            <DeleteRowButton onDeleted={() => void refreshStatistics()} />
        </Box>
    );
}

/** Rows of every device page fetched so far, so a selection spanning pages still knows each device's project. */
function useSelectedRows(selectedIds: RaRecord['id'][]): DeviceRow[] {
    const queryClient = useQueryClient();
    const known = new Map<string, DeviceRow>();
    for (const [, answer] of queryClient.getQueriesData<{ data?: DeviceRow[] }>({ queryKey: [DEVICES, 'getList'] })) {
        for (const row of answer?.data ?? []) known.set(String(row.id), row);
    }
    return selectedIds.map((id) => known.get(String(id))).filter((r): r is DeviceRow => !!r);
}

/**
 * /devices (SPEC.md "Device management with tabs"): ?pk= preselects a product and stays in the URL with the
 * page; ?type=program opens the add dialog; tabs 设备列表 and 视频流列表 (?tab=video).
 */
export default function DevicesPage() {
    const definition = useDefinition();
    const [search, setSearch] = useSearchParams();
    const platform = usePlatform();
    const refresh = useRefreshDevices();
    const callUrl = useCallUrl();
    const products = useProducts();
    const [adding, setAdding] = useState(() => search.get('type') === 'program');
    const [importing, setImporting] = useState(false);

    const tab = search.get('tab') === 'video' ? 'video' : 'list';
    const pk = search.get('pk') ?? '';
    const product = pk ? products.data?.find((p) => p.productKey === pk) : undefined;
    const list = useUrlListController({
        resource: DEVICES,
        perPage: PER_PAGE,
        queryFilters: { productKey: 'pk' },
        selectionKey: 'devices',
    });
    const selected = useSelectedRows(list.selectedIds);

    const setTab = (next: string) =>
        setSearch((current) => {
            const params = new URLSearchParams(current);
            if (next === 'video') params.set('tab', 'video');
            else params.delete('tab');
            return params;
        });

    const closeAdd = () => {
        setAdding(false);
        if (search.get('type')) {
            setSearch(
                (current) => {
                    const params = new URLSearchParams(current);
                    params.delete('type');
                    return params;
                },
                { replace: true },
            );
        }
    };

    const afterBinding = () => {
        list.onUnselectItems();
        void refresh();
    };

    const filters = pk ? { productKey: pk } : {};
    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title="设备管理" />
            <Card variant="outlined">
                <CardContent>
                    <Typography variant="h6" component="h1" sx={{ mb: 1 }}>
                        设备管理
                    </Typography>
                    <Tabs
                        value={tab}
                        onChange={(_, next: string) => setTab(next)}
                        aria-label="设备管理"
                        sx={{ borderBottom: 1, borderColor: 'divider', mb: 2 }}
                    >
                        <Tab value="list" label="设备列表" />
                        <Tab value="video" label="视频流列表" />
                    </Tabs>
                    {tab === 'video' ? (
                        <VideoTab />
                    ) : (
                        <>
                            <ToolbarRow>
                                <ProductFilter
                                    products={products.data}
                                    value={pk}
                                    by="productKey"
                                    onChange={(value) => list.setFilters({ productKey: value || undefined }, {})}
                                    loading={products.isPending}
                                />
                                <DeviceCounts productKey={pk || undefined} show={['total', 'online', 'inactive']} />
                            </ToolbarRow>
                            <ToolbarRow>
                                <Button variant="contained" startIcon={<AddIcon />} onClick={() => setAdding(true)}>
                                    添加设备
                                </Button>
                                <Button
                                    variant="outlined"
                                    startIcon={<UploadFileIcon />}
                                    onClick={() => setImporting(true)}
                                >
                                    批量导入
                                </Button>
                                <BindButtons selected={selected} onChanged={afterBinding} />
                                <Button
                                    variant="outlined"
                                    component="a"
                                    href={callUrl('export', filters)}
                                    download
                                    startIcon={<FileDownloadIcon />}
                                >
                                    导出
                                </Button>
                            </ToolbarRow>
                            <DeviceTable list={list} columns={COLUMNS} perPageOptions={PER_PAGE_OPTIONS} selectable>
                                <EnableSwitch label="启用" />
                                <Actions label="操作" />
                            </DeviceTable>
                        </>
                    )}
                </CardContent>
            </Card>
            <FormDialog
                open={adding}
                onClose={closeAdd}
                title="添加设备"
                fields={['productId', 'deviceName', 'remark']}
                schema={saveDeviceSchema}
                defaultValues={{ productId: product?.productId ?? '' }}
                locked={product ? ['productId'] : []}
                submit={async (values) => (await platform.invoke(DEVICES, 'saveDevice', values)).data}
                success={definition.messages?.created}
                failure={definition.messages?.createFailed}
                onSuccess={() => void refresh()}
            />
            <ImportDialog
                open={importing}
                onClose={() => setImporting(false)}
                resource={DEVICES}
                products={products.data ?? []}
                defaultProductKey={pk || undefined}
                templateUrl={callUrl('importTemplate')}
                onImported={() => void refresh()}
            />
        </Box>
    );
}
