import * as yup from 'yup';
import { platformName, requiredInt } from './rules';

export const NODE_TYPES = [
    { id: 0, name: '设备' },
    { id: 1, name: '网关' },
] as const;

export const DATA_TYPES = [
    { id: 0, name: '标准数据格式（JSON）' },
    { id: 1, name: '透传/自定义' },
] as const;

export const DEFAULT_NETWORK_TYPE = 5;
export const DEFAULT_DATA_TYPE = 0;

export const productNameRule = platformName({
    required: '产品名称不能为空',
    length: '长度限制4~30，中文算2位',
    charset: '支持中文、英文字母、数字和下划线',
});

export const productCreateSchema = yup.object({
    productName: productNameRule,
    categoryId: requiredInt('请选择所属分类'),
    nodeType: requiredInt('请选择节点类型').oneOf([0, 1], '请选择节点类型'),
    gatewayType: requiredInt('请选择是否接入网关').oneOf([0, 1], '请选择是否接入网关'),
    networkType: requiredInt('请选择连网方式'),
    dataType: requiredInt('请选择数据格式').oneOf([0, 1], '请选择数据格式'),
    projectCode: yup.string().trim().max(64, '项目编码不得超过64个字符').optional(),
    remark: yup.string().trim().max(100, '描述不得超过100个字符').optional(),
});

export const productUpdateSchema = yup.object({
    productId: requiredInt('缺少产品ID'),
    productName: productNameRule,
    remark: yup.string().trim().max(100, '描述不得超过100个字符').optional(),
});

export type ProductCreateInput = yup.InferType<typeof productCreateSchema>;
export type ProductUpdateInput = yup.InferType<typeof productUpdateSchema>;
