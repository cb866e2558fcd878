import * as yup from 'yup';
import { deviceNameRule } from './device';
import { requiredInt } from './rules';

/** Messages of the project and scene forms (SPEC.md "Projects and scenes"; the first three verbatim). */
export const PROJECT_MESSAGES = {
    nameRequired: '请输入项目名称',
    sceneRequired: '请选择项目分类',
    sceneNameRequired: '请输入场景名称',
    nameMax: '项目名称不得超过30个字符',
    remarkMax: '备注不得超过200个字符',
    sceneNameMax: '场景名称不得超过20个字符',
    staffRequired: '请选择要添加的人员',
    productRequired: '请选择产品!',
    deviceRemarkMax: '备注不得超过100个字符',
} as const;

export const PROJECT_PAGE_SIZES = [5, 10, 20] as const;

/** Project health per day: `max(0, 100 − 10·urgent − 5·severe − 1·general)` over the alerts raised that day. */
export function healthScore(urgent: number, severe: number, general: number): number {
    return Math.max(0, 100 - 10 * urgent - 5 * severe - general);
}

/** Alert levels (SPEC.md): 1 urgent, 2 severe, 3 general. */
export const ALERT_LEVELS = { 1: '紧急', 2: '严重', 3: '一般' } as const;

export const projectSaveSchema = yup.object({
    name: yup.string().trim().required(PROJECT_MESSAGES.nameRequired).max(30, PROJECT_MESSAGES.nameMax),
    classId: requiredInt(PROJECT_MESSAGES.sceneRequired),
    remark: yup.string().trim().max(200, PROJECT_MESSAGES.remarkMax).optional(),
});

export const projectUpdateSchema = projectSaveSchema.shape({
    id: requiredInt('缺少项目ID'),
});

export const sceneSaveSchema = yup.object({
    // A form sends an empty id for a new scene.
    id: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError('场景ID必须是正整数')
        .integer('场景ID必须是正整数')
        .positive('场景ID必须是正整数')
        .optional(),
    name: yup.string().trim().required(PROJECT_MESSAGES.sceneNameRequired).max(20, PROJECT_MESSAGES.sceneNameMax),
});

/** 添加人员 on the overview: at least one user ticked. */
export const staffAddSchema = yup.object({
    userIds: yup
        .array()
        .of(yup.number().required())
        .min(1, PROJECT_MESSAGES.staffRequired)
        .required(PROJECT_MESSAGES.staffRequired),
});

/** 添加设备 on the overview: the /devices add dialog's rules (SaveDevice), the device then joins the project. */
export const projectDeviceSchema = yup.object({
    productId: requiredInt(PROJECT_MESSAGES.productRequired),
    deviceName: deviceNameRule,
    remark: yup.string().trim().max(100, PROJECT_MESSAGES.deviceRemarkMax).optional(),
});

export type ProjectSaveInput = yup.InferType<typeof projectSaveSchema>;
export type SceneSaveInput = yup.InferType<typeof sceneSaveSchema>;
