import * as yup from 'yup';
import { MIN_PASSWORD_LENGTH, MOBILE } from './rules';

/** Messages of the people, role and user-centre forms. */
export const USER_MESSAGES = {
    nameRequired: '请输入姓名',
    nameMax: '姓名不得超过30个字符',
    loginRequired: '请输入登录名',
    loginPattern: '登录名以字母开头，只能包含字母、数字和下划线，长度4~30',
    mobileRequired: '请输入手机号',
    mobilePattern: '请输入正确的手机号',
    passwordRequired: '请输入密码',
    passwordMin: `密码长度不能少于${MIN_PASSWORD_LENGTH}位`,
    passwordMax: '密码长度不能超过64位',
    passwordMismatch: '两次输入的密码不一致，请重新输入！',
    oldPasswordRequired: '请输入原密码',
    roleRequired: '请选择角色',
    roleNameRequired: '请输入角色名称',
    roleNameMax: '角色名称不得超过20个字符',
    remarkMax: '备注不得超过200个字符',
} as const;

export const LOGIN_NAME = /^[A-Za-z][A-Za-z0-9_]{3,29}$/;

/** The password rule (SPEC.md: at least 6): the user form, reset, and change password share it. */
export const passwordRule = yup
    .string()
    .required(USER_MESSAGES.passwordRequired)
    .min(MIN_PASSWORD_LENGTH, USER_MESSAGES.passwordMin)
    .max(64, USER_MESSAGES.passwordMax);

const nameRule = yup.string().trim().required(USER_MESSAGES.nameRequired).max(30, USER_MESSAGES.nameMax);
const mobileRule = yup
    .string()
    .trim()
    .required(USER_MESSAGES.mobileRequired)
    .matches(MOBILE, USER_MESSAGES.mobilePattern);
const roleRule = yup
    .number()
    .transform((v, raw) => (raw === '' || raw === null ? undefined : v))
    .typeError(USER_MESSAGES.roleRequired)
    .integer(USER_MESSAGES.roleRequired)
    .positive(USER_MESSAGES.roleRequired)
    .max(2_147_483_647, USER_MESSAGES.roleRequired)
    .required(USER_MESSAGES.roleRequired);

export const userCreateSchema = yup.object({
    displayName: nameRule,
    username: yup.string().trim().required(USER_MESSAGES.loginRequired).matches(LOGIN_NAME, USER_MESSAGES.loginPattern),
    mobile: mobileRule,
    password: passwordRule,
    roleId: roleRule,
});

export const userUpdateSchema = yup.object({
    id: yup
        .number()
        .typeError('缺少用户ID')
        .integer('缺少用户ID')
        .positive('缺少用户ID')
        .max(2_147_483_647)
        .required('缺少用户ID'),
    displayName: nameRule,
    mobile: mobileRule,
    roleId: roleRule,
});

/** The user centre's own profile. */
export const profileSchema = yup.object({ displayName: nameRule, mobile: mobileRule });

export const changePasswordSchema = yup.object({
    oldPassword: yup.string().required(USER_MESSAGES.oldPasswordRequired),
    newPassword: passwordRule,
    confirmPassword: yup
        .string()
        .required(USER_MESSAGES.passwordRequired)
        .oneOf([yup.ref('newPassword')], USER_MESSAGES.passwordMismatch),
});

export const roleSaveSchema = yup.object({
    name: yup.string().trim().required(USER_MESSAGES.roleNameRequired).max(20, USER_MESSAGES.roleNameMax),
    remark: yup.string().trim().max(200, USER_MESSAGES.remarkMax).optional(),
});
