import { useId, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { yupResolver } from '@hookform/resolvers/yup';
import { useNotify, useUpdate } from 'react-admin';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { productUpdateSchema } from '../../../schemas/product';
import { errorMessage } from '../../components/thingModel/api';
import type { Product } from './types';

interface EditValues {
    productId: number;
    productName: string;
    remark: string;
}

/** 编辑产品: name (the platform's name rule) and description, saved through POST /api/product/update. */
export function ProductEditDialog({ product, onClose }: { product: Product; onClose: () => void }) {
    const titleId = useId();
    const notify = useNotify();
    const [update, { isPending }] = useUpdate<Product>();
    const [serverError, setServerError] = useState<string | null>(null);
    const { control, handleSubmit, setError } = useForm<EditValues>({
        defaultValues: {
            productId: product.productId,
            productName: product.productName ?? '',
            remark: product.remark ?? '',
        },
        resolver: yupResolver(productUpdateSchema) as never,
    });

    const save = handleSubmit(async (values) => {
        setServerError(null);
        const data = {
            productId: product.productId,
            productName: values.productName.trim(),
            remark: values.remark.trim(),
        };
        try {
            await update(
                'products',
                { id: product.id, data, previousData: product },
                { mutationMode: 'pessimistic', returnPromise: true },
            );
            notify('修改成功', { type: 'success' });
            onClose();
        } catch (error) {
            const message = errorMessage(error, '修改失败');
            if (message.includes('名称')) setError('productName', { type: 'server', message });
            else setServerError(message);
        }
    });

    return (
        <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby={titleId}>
            <DialogTitle id={titleId}>编辑产品</DialogTitle>
            <DialogContent>
                <Stack spacing={2} sx={{ pt: 1 }}>
                    {serverError && <Alert severity="error">{serverError}</Alert>}
                    <Controller
                        name="productName"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                required
                                label="产品名称"
                                size="small"
                                error={!!fieldState.error}
                                helperText={
                                    fieldState.error?.message ?? '支持中文、英文字母、数字和下划线；中文算2位，共4~30位'
                                }
                            />
                        )}
                    />
                    <Controller
                        name="remark"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                label="描述"
                                size="small"
                                multiline
                                minRows={3}
                                error={!!fieldState.error}
                                helperText={fieldState.error?.message ?? `${field.value.length}/100`}
                                slotProps={{ htmlInput: { maxLength: 100 } }}
                            />
                        )}
                    />
                </Stack>
            </DialogContent>
            <DialogActions>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" onClick={save} disabled={isPending}>
                    确定
                </Button>
            </DialogActions>
        </Dialog>
    );
}
