import * as yup from 'yup';
import { platformName, requiredInt } from './rules';

/** Deepest level; a level-3 group is a leaf and cannot be a parent (SPEC.md "Groups"). */
export const MAX_GROUP_LEVEL = 3;

/** SPEC.md §9 "Group pages": default 5; options 5, 10, 20, quick jumper and size changer. */
export const GROUP_PAGE_SIZE = 5;
export const GROUP_PAGE_SIZES = [5, 10, 20] as const;
export const GROUP_DEVICE_PAGE_SIZE = 10;
/** Lazy tree children load after this delay (SPEC.md "Tree child load delay"). */
export const TREE_CHILD_LOAD_DELAY_MS = 300;

export const GROUP_MESSAGES = {
    nameRequired: '分组名称不能为空',
    nameLength: '分组名称长度限制4~30，中文算2位',
    nameCharset: '分组名称支持中文、英文字母、数字和下划线',
    parentRequired: '请选择父组!',
    nameOnSave: '请输入分组名称!',
    projectRequired: '请选择项目',
    remarkMax: '描述不得超过200个字符',
    deleteConfirm: '是否删除此应用？',
    deleteConfirmEn: 'are you sure to delete the group?',
    created: '创建分组成功',
    leafParent: '第三级分组不能作为父组',
} as const;

export const groupNameRule = platformName({
    required: GROUP_MESSAGES.nameRequired,
    length: GROUP_MESSAGES.nameLength,
    charset: GROUP_MESSAGES.nameCharset,
});

/** The group name as the new-group modal saves it: empty says the on-save message, then the name rules. */
export const groupNameOnSave = platformName({
    required: GROUP_MESSAGES.nameOnSave,
    length: GROUP_MESSAGES.nameLength,
    charset: GROUP_MESSAGES.nameCharset,
});

/**
 * The new-group form (and the server's check of /api/group/save). pid 0 makes a root (level 1) group; the modal's
 * tree select offers "无（作为一级分组）" as 0, so an untouched select is what says '请选择父组!'. While typing, the
 * modal shows the name rules (groupNameRule, '分组名称不能为空' when emptied); on save an empty name says
 * '请输入分组名称!'.
 */
export const groupSaveSchema = yup.object({
    projectCode: yup.string().trim().required(GROUP_MESSAGES.projectRequired),
    pid: requiredInt(GROUP_MESSAGES.parentRequired).min(0, GROUP_MESSAGES.parentRequired),
    name: groupNameOnSave,
    remark: yup.string().trim().max(200, GROUP_MESSAGES.remarkMax).optional(),
});

/** While typing in the new-group form, the name rules of SPEC.md speak ('分组名称不能为空' when emptied). */
export const groupLiveSchema = yup.object({
    projectCode: yup.string(),
    pid: yup.mixed(),
    name: groupNameRule,
    remark: yup.string().trim().max(200, GROUP_MESSAGES.remarkMax),
});

/** The 编辑分组 form: the description only. */
export const groupRemarkSchema = yup.object({
    remark: yup.string().trim().max(200, GROUP_MESSAGES.remarkMax),
});

/** Edit: the description; a name (renamed by the same rules) and pid (a move) only when sent. */
export const groupUpdateSchema = yup.object({
    groupId: requiredInt('缺少分组ID'),
    name: groupNameRule.clone().optional().default(undefined),
    remark: yup.string().trim().max(200, GROUP_MESSAGES.remarkMax).optional(),
    pid: yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError('父分组ID必须是整数')
        .integer('父分组ID必须是整数')
        .min(0, '父分组ID必须是整数')
        .optional(),
});

/** The label (tag) filter of a group's device list: a tag key, and optionally its value. */
export const groupTagFilterSchema = yup.object({
    tagKey: yup.string().trim().required('请输入标签Key').max(64, '标签Key不得超过64个字符'),
    tagValue: yup.string().trim().max(128, '不得超过128个字符').optional(),
});

export type GroupSaveInput = yup.InferType<typeof groupSaveSchema>;
