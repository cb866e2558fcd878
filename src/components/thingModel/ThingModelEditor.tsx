import { useState } from 'react';
import { Confirm, useDelete, useGetList, useNotify } from 'react-admin';
import { Alert, Box, Button, Stack, Tab, Tabs } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import LibraryAddIcon from '@mui/icons-material/LibraryAdd';
import FileUploadIcon from '@mui/icons-material/FileUpload';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import DataObjectIcon from '@mui/icons-material/DataObject';
import type { FunctionType } from '../../../schemas/thingModel';
import { FUNCTION_TYPE_LABELS, type ThingFunction, type ThingModel, type Unit } from './model';
import { errorMessage, useInvoke, usePlatformDataProvider } from './api';
import { FunctionTable } from './FunctionTable';
import { FunctionDialog } from './FunctionDialog';
import { StandardFunctionDialog } from './StandardFunctionDialog';
import { ImportDialog } from './ImportDialog';
import { TslDialog } from './TslDialog';
import { downloadJson } from './download';

export interface ThingModelProduct {
    productId: number;
    productKey?: string;
    categoryId?: number | null;
}

type Filter = 'all' | FunctionType;
type OpenDialog =
    { kind: 'function'; record?: ThingFunction } | { kind: 'standard' } | { kind: 'import' } | { kind: 'tsl' } | null;

type Row = ThingFunction & { id: number };

/** 功能定义: the product's thing model as a table, with add, edit, delete, standard functions, import and export. */
export function ThingModelEditor({ product }: { product: ThingModelProduct }) {
    const { productId, productKey } = product;
    const notify = useNotify();
    const dataProvider = usePlatformDataProvider();
    const [filter, setFilter] = useState<Filter>('all');
    const [page, setPage] = useState(1);
    const [perPage, setPerPage] = useState(10);
    const [dialog, setDialog] = useState<OpenDialog>(null);
    const [deleting, setDeleting] = useState<Row | null>(null);
    const [exporting, setExporting] = useState(false);
    const units = useInvoke<Unit[]>('thingFunctions', 'units', {}, []);
    const unitList = Array.isArray(units.data) ? units.data : [];
    const list = useGetList<Row>(
        'thingFunctions',
        { pagination: { page, perPage }, filter: filter === 'all' ? { productId } : { productId, type: filter } },
        { retry: false },
    );
    const [deleteOne, { isPending: deletePending }] = useDelete<Row>();

    const changeFilter = (next: Filter) => {
        setFilter(next);
        setPage(1);
    };

    const confirmDelete = async () => {
        if (!deleting) return;
        try {
            await deleteOne(
                'thingFunctions',
                { id: deleting.id, previousData: deleting },
                { mutationMode: 'pessimistic', returnPromise: true },
            );
            notify('删除成功', { type: 'success' });
            // Deleting the last row of a later page steps back a page (SPEC "Pagination").
            if (page > 1 && (list.data?.length ?? 0) <= 1) setPage(page - 1);
            else await list.refetch();
        } catch (error) {
            notify(errorMessage(error, '删除失败'), { type: 'error' });
        } finally {
            setDeleting(null);
        }
    };

    const exportModel = async () => {
        setExporting(true);
        try {
            const { data } = await dataProvider.invoke<ThingModel>('thingFunctions', 'export', { productId });
            downloadJson(data, `${productKey ?? productId}-thing-model.json`);
        } catch (error) {
            notify(errorMessage(error, '导出失败'), { type: 'error' });
        } finally {
            setExporting(false);
        }
    };

    return (
        <Box>
            <Stack direction="row" spacing={1} useFlexGap sx={{ mb: 2, flexWrap: 'wrap' }}>
                <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ kind: 'function' })}>
                    添加自定义功能
                </Button>
                <Button
                    variant="outlined"
                    startIcon={<LibraryAddIcon />}
                    onClick={() => setDialog({ kind: 'standard' })}
                >
                    添加标准功能
                </Button>
                <Button variant="outlined" startIcon={<FileUploadIcon />} onClick={() => setDialog({ kind: 'import' })}>
                    导入物模型
                </Button>
                <Button variant="outlined" startIcon={<FileDownloadIcon />} onClick={exportModel} disabled={exporting}>
                    导出物模型
                </Button>
                <Button variant="outlined" startIcon={<DataObjectIcon />} onClick={() => setDialog({ kind: 'tsl' })}>
                    查看物模型
                </Button>
            </Stack>
            <Tabs
                value={filter}
                onChange={(_, v: Filter) => changeFilter(v)}
                aria-label="功能类型"
                variant="scrollable"
                allowScrollButtonsMobile
                sx={{ borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { textTransform: 'none' } }}
            >
                <Tab value="all" label="全部" />
                {(Object.keys(FUNCTION_TYPE_LABELS) as FunctionType[]).map((t) => (
                    <Tab key={t} value={t} label={FUNCTION_TYPE_LABELS[t]} />
                ))}
            </Tabs>
            {list.error ? (
                <Alert severity="error" sx={{ mt: 2 }}>
                    {errorMessage(list.error, '功能定义加载失败')}
                </Alert>
            ) : null}
            <FunctionTable
                rows={list.data ?? []}
                total={list.total ?? 0}
                page={page}
                perPage={perPage}
                onPageChange={setPage}
                onPerPageChange={(n) => {
                    setPerPage(n);
                    setPage(1);
                }}
                loading={list.isPending || list.isFetching}
                units={unitList}
                onEdit={(record) => setDialog({ kind: 'function', record })}
                onDelete={(record) => setDeleting(record as Row)}
            />
            {dialog?.kind === 'function' && (
                <FunctionDialog
                    productId={productId}
                    record={dialog.record}
                    units={unitList}
                    onClose={() => setDialog(null)}
                    onSaved={() => {
                        notify(dialog.record ? '修改成功' : '添加成功', { type: 'success' });
                        setDialog(null);
                        void list.refetch();
                    }}
                />
            )}
            {dialog?.kind === 'standard' && (
                <StandardFunctionDialog
                    productId={productId}
                    categoryId={product.categoryId}
                    units={unitList}
                    onClose={() => setDialog(null)}
                    onAdded={(count) => {
                        notify(`已添加 ${count} 个标准功能`, { type: 'success' });
                        void list.refetch();
                    }}
                />
            )}
            {dialog?.kind === 'import' && (
                <ImportDialog
                    productId={productId}
                    productKey={productKey}
                    onClose={() => setDialog(null)}
                    onImported={() => {
                        notify('导入成功', { type: 'success' });
                        setDialog(null);
                        setPage(1);
                        void list.refetch();
                    }}
                />
            )}
            {dialog?.kind === 'tsl' && <TslDialog productId={productId} onClose={() => setDialog(null)} />}
            <Confirm
                isOpen={deleting !== null}
                loading={deletePending}
                title="删除功能"
                content={deleting ? `确认删除功能“${deleting.name}（${deleting.identifier}）”吗？` : ''}
                confirm="确认"
                cancel="取消"
                onConfirm={confirmDelete}
                onClose={() => setDeleting(null)}
            />
        </Box>
    );
}
