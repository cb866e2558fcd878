import * as yup from 'yup';
import { requiredInt } from './rules';

/** Device status values as the platform stores them; 'Y' from older records is treated as offline. */
export const DEVICE_STATUSES = [
    { id: 'INACTIVE', name: '未激活', color: 'default' },
    { id: 'ONLINE', name: '在线', color: 'success' },
    { id: 'OFFLINE', name: '离线', color: 'warning' },
    { id: 'DISABLE', name: '已禁用', color: 'error' },
] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number]['id'];

export function normaliseStatus(status: unknown): DeviceStatus {
    if (status === 'Y') return 'OFFLINE';
    return DEVICE_STATUSES.some((s) => s.id === status) ? (status as DeviceStatus) : 'INACTIVE';
}

/**
 * deviceName travels inside MQTT topics and usernames, so it keeps to the characters Alibaba Cloud IoT allows
 * (letters, digits, - _ @ . :) and never holds '/', '+', '#', spaces or markup.
 */
export const DEVICE_NAME = /^[A-Za-z0-9_\-@.:]+$/;
export const DEVICE_NAME_MIN = 4;
export const DEVICE_NAME_MAX = 32;
export const DEVICE_NAME_RULE_TEXT = '4~32个字符，支持英文字母、数字和特殊字符 - _ @ . :';

export const MAX_BATCH_AMOUNT = 10_000;

export const deviceNameRule = yup
    .string()
    .trim()
    .required('请输入deviceName!')
    .min(DEVICE_NAME_MIN, `设备名称长度须为${DEVICE_NAME_RULE_TEXT}`)
    .max(DEVICE_NAME_MAX, `设备名称长度须为${DEVICE_NAME_RULE_TEXT}`)
    .matches(DEVICE_NAME, { message: `设备名称只能包含英文字母、数字和特殊字符 - _ @ . :`, excludeEmptyString: true });

const remarkRule = yup.string().trim().max(100, '备注不得超过100个字符');

const longitude = yup
    .number()
    .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
    .typeError('经度须为数字')
    .min(-180, '经度须在-180~180之间')
    .max(180, '经度须在-180~180之间')
    .optional();
const latitude = yup
    .number()
    .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
    .typeError('纬度须为数字')
    .min(-90, '纬度须在-90~90之间')
    .max(90, '纬度须在-90~90之间')
    .optional();

/** Add device (the list screen and the generic form). */
export const deviceCreateSchema = yup.object({
    productKey: yup.string().trim().required('请选择产品'),
    deviceName: deviceNameRule,
    remark: remarkRule.optional(),
    longitude,
    latitude,
    addr: yup.string().trim().max(200, '地址不得超过200个字符').optional(),
});

/** Add device on the tabs screen (/devices): the product chosen by id. */
export const deviceCreateByIdSchema = yup.object({
    productId: requiredInt('请选择产品'),
    deviceName: deviceNameRule,
    remark: remarkRule.optional(),
});

/** Device edit: remark required. */
export const deviceEditSchema = yup.object({
    remark: yup.string().trim().required('备注名称不能为空').max(100, '备注不得超过100个字符'),
});

export const batchRegisterSchema = yup.object({
    productId: requiredInt('请选择产品'),
    amount: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError('请输入添加数量')
        .required('请输入添加数量')
        .integer('添加数量须为整数')
        .min(1, `添加数量须为1~${MAX_BATCH_AMOUNT}`)
        .max(MAX_BATCH_AMOUNT, `添加数量须为1~${MAX_BATCH_AMOUNT}`),
});

/** Bind / unbind: the console checks the selection with these messages before it calls (SPEC.md "Devices"). */
export interface BindCandidate {
    deviceId: number | string;
    projectId?: number | string | null;
}

export function checkBind(selected: BindCandidate[], projectId: unknown): string | null {
    if (selected.length === 0) return '请选择需要关联项目的设备';
    if (selected.some((d) => d.projectId !== null && d.projectId !== undefined && d.projectId !== ''))
        return '请选择未关联项目的设备进行关联';
    if (projectId === null || projectId === undefined || projectId === '') return '请选择要关联的场景';
    return null;
}

export function checkUnbind(selected: BindCandidate[]): string | null {
    if (selected.length === 0) return '请选择需要批量解绑的设备';
    if (selected.some((d) => d.projectId === null || d.projectId === undefined || d.projectId === ''))
        return '请选择已关联项目的设备进行解绑';
    if (new Set(selected.map((d) => String(d.projectId))).size > 1) return '请选择关联同一项目的设备进行解绑';
    return null;
}

/** Bulk import: the CSV columns, in order (the template carries them as its header row). */
export const IMPORT_COLUMNS = ['deviceName', 'remark', 'longitude', 'latitude', 'addr'] as const;
/** Only deviceName must be filled in; the other columns may be left out of the file or empty. */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 100_000;

/** One import row: the add-device rules without the product (the upload names it once). */
export const deviceImportRowSchema = deviceCreateSchema.omit(['productKey']);

/** Messages the server answers for device names that clash (save, edit, import). */
export const DEVICE_NAME_TAKEN = '设备名称已存在';
export const IMPORT_DUPLICATE_IN_FILE = '文件中重复';
export const IMPORT_DEVICE_EXISTS = '设备已存在';

export type DeviceCreateInput = yup.InferType<typeof deviceCreateSchema>;
