import * as yup from 'yup';

export const productLogSchema = yup.object({
    log: yup.string().trim().required('请输入产品日志').max(2000, '产品日志不得超过2000个字符'),
});

export type ProductLogInput = yup.InferType<typeof productLogSchema>;
