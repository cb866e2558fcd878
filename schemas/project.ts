import * as yup from 'yup';
import { requiredInt } from './rules';

/** Scenes every installation starts with (SPEC.md: smart office, smart city, smart vehicle, industrial internet). */
export const PROJECT_MESSAGES = {
    nameRequired: '请输入项目名称',
    sceneRequired: '请选择项目分类',
    sceneNameRequired: '请输入场景名称',
    nameMax: '项目名称不得超过30个字符',
    remarkMax: '备注不得超过200个字符',
    sceneNameMax: '场景名称不得超过20个字符',
} as const;

export const PROJECT_PAGE_SIZES = [5, 10, 20] as const;

export const projectSaveSchema = yup.object({
    name: yup.string().trim().required(PROJECT_MESSAGES.nameRequired).max(30, PROJECT_MESSAGES.nameMax),
    classId: requiredInt(PROJECT_MESSAGES.sceneRequired),
    remark: yup.string().trim().max(200, PROJECT_MESSAGES.remarkMax).optional(),
});

export const projectUpdateSchema = projectSaveSchema.shape({
    id: requiredInt('缺少项目ID'),
});

export const sceneSaveSchema = yup.object({
    id: yup.number().integer().positive().optional(),
    name: yup.string().trim().required(PROJECT_MESSAGES.sceneNameRequired).max(20, PROJECT_MESSAGES.sceneNameMax),
});

export type ProjectSaveInput = yup.InferType<typeof projectSaveSchema>;
