import * as yup from 'yup';
import { requiredInt } from './rules';

/**
 * OTA firmware upgrades (docs/ota.md), after Alibaba Cloud IoT: packages, verification and batches. Shared by the
 * console's forms and the server, so both refuse the same input with the same words.
 */

/** Lower-case extensions a firmware file may have. */
export const OTA_EXTENSIONS = ['bin', 'zip', 'gz', 'tar', 'hex'] as const;

/** The default upload limit (OTA_MAX_MB overrides it on the server). */
export const OTA_DEFAULT_MAX_MB = 200;

export const OTA_SIGN_METHODS = [
    { id: 'MD5', name: 'MD5' },
    { id: 'SHA256', name: 'SHA256' },
] as const;

/** Per-device states of a batch, with their Chinese names (what the console and the counts show). */
export const OTA_STATES = [
    { id: 'pending', name: '待推送', color: 'default' },
    { id: 'pushed', name: '已推送', color: 'info' },
    { id: 'upgrading', name: '升级中', color: 'primary' },
    { id: 'succeeded', name: '成功', color: 'success' },
    { id: 'failed', name: '失败', color: 'error' },
    { id: 'cancelled', name: '已取消', color: 'default' },
] as const;
export type OtaState = (typeof OTA_STATES)[number]['id'];

export const OTA_BATCH_STATUSES = [
    { id: 'running', name: '进行中' },
    { id: 'done', name: '已完成' },
    { id: 'cancelled', name: '已取消' },
] as const;

export const OTA_SCOPES = [
    { id: 'devices', name: '指定设备' },
    { id: 'group', name: '设备分组' },
    { id: 'project', name: '项目' },
    { id: 'product', name: '全部设备' },
] as const;

/** What each negative step of Alibaba's progress report means. */
export const OTA_FAILED_STEPS: Record<string, string> = {
    '-1': '升级失败',
    '-2': '下载失败',
    '-3': '校验失败',
    '-4': '烧写失败',
};

export const OTA_VERIFY_MAX = 10;
export const OTA_VERSION = /^[A-Za-z0-9_.-]{1,64}$/;
export const OTA_MODULE = /^[A-Za-z0-9_.-]{1,64}$/;

export const OTA_MESSAGES = {
    fileRequired: '请选择固件文件',
    empty: '固件文件为空',
    type: `固件文件只支持 ${OTA_EXTENSIONS.map((e) => `.${e}`).join('、')} 格式`,
    tooLarge: (mb: number) => `固件文件不能超过${mb}MB`,
    duplicate: '该产品的此模块已有相同版本的固件，请修改版本号',
    notFound: '固件不存在',
    inUse: '该固件有进行中的升级批次，请先取消批次再删除',
    batchNotFound: '升级批次不存在',
    noDevices: '没有符合条件的设备',
    verifyMax: `验证固件最多选择${OTA_VERIFY_MAX}台设备`,
} as const;

const versionList = (label: string) =>
    yup
        .string()
        .max(1000, `${label}不得超过1000个字符`)
        .test('versions', `${label}每项只能包含字母、数字、下划线、中划线和点号，以逗号分隔`, (v) =>
            splitVersions(v).every((x) => OTA_VERSION.test(x)),
        );

/** "1.0.0, 1.0.1" → ['1.0.0', '1.0.1'] (empty: any version). */
export function splitVersions(raw: string | undefined | null): string[] {
    return (raw ?? '')
        .split(/[,，\s]+/)
        .map((s) => s.trim())
        .filter(Boolean);
}

/** The fields of 上传固件 (the file itself is checked apart: type and size). */
export const otaPackageSchema = yup.object({
    name: yup
        .string()
        .trim()
        .required('请输入固件名称')
        .max(40, '固件名称不得超过40个字符')
        .matches(/^[\u4e00-\u9fa5A-Za-z0-9_\-. ]+$/, {
            message: '固件名称支持中文、英文字母、数字、下划线、中划线、点号和空格',
            excludeEmptyString: true,
        }),
    productId: requiredInt('请选择产品'),
    module: yup
        .string()
        .trim()
        .default('default')
        .transform((v: string | undefined) => (v ? v : 'default'))
        .matches(OTA_MODULE, '模块名只能包含字母、数字、下划线、中划线和点号，不超过64个字符'),
    version: yup
        .string()
        .trim()
        .required('请输入固件版本号')
        .matches(OTA_VERSION, '版本号只能包含字母、数字、下划线、中划线和点号，不超过64个字符'),
    sourceVersions: versionList('待升级版本'),
    signMethod: yup.string().required('请选择签名算法').oneOf(['MD5', 'SHA256'], '签名算法只能是 MD5 或 SHA256'),
    description: yup.string().trim().max(100, '固件描述不得超过100个字符'),
});

const optionalInt = (message: string, min: number, max: number) =>
    yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError(message)
        .integer(message)
        .min(min, message)
        .max(max, message);

/** A time as the console's inputs send it (ISO or 'YYYY-MM-DD HH:mm[:ss]'); empty: none. */
const optionalTime = (message: string) =>
    yup
        .string()
        .trim()
        .test('time', message, (v) => !v || Number.isFinite(parseTime(v)));

export function parseTime(v: string): number {
    const local = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(v);
    // Console times without a zone are China time, as the console shows them.
    return Date.parse(local ? `${v.replace(' ', 'T')}${v.length === 16 ? ':00' : ''}+08:00` : v);
}

/** 批量升级 and 验证固件: whom, when and how fast. */
export const otaBatchSchema = yup.object({
    packageId: requiredInt('缺少固件ID'),
    kind: yup.string().default('batch').oneOf(['batch', 'verify'], '批次类型只能是 batch 或 verify'),
    scope: yup
        .string()
        .required('请选择升级范围')
        .oneOf(
            OTA_SCOPES.map((s) => s.id),
            '升级范围只能是指定设备、设备分组、项目或全部设备',
        ),
    deviceIds: yup.string().max(20000, '设备过多，请改用分组或项目'),
    groupId: optionalInt('请选择设备分组', 1, 2_147_483_647),
    projectId: optionalInt('请选择项目', 1, 2_147_483_647),
    sourceVersions: versionList('待升级版本'),
    dynamic: yup
        .boolean()
        .transform((v, raw) => (raw === 'true' || raw === '1' || raw === true ? true : raw === '' ? false : v))
        .default(false),
    startTime: optionalTime('开始时间格式不正确'),
    endTime: optionalTime('结束时间格式不正确'),
    ratePerMinute: optionalInt('每分钟推送数量应为1~10000的整数', 1, 10000),
    timeoutMinutes: optionalInt('设备升级超时时间应为1~1440分钟的整数', 1, 1440).default(60),
    retries: optionalInt('失败重试次数应为0~5的整数', 0, 5).default(0),
});

/** Device ids as the form sends them: "1,2,3" (or repeated). */
export function splitIds(raw: string | undefined | null): number[] {
    return (raw ?? '')
        .split(/[,，\s]+/)
        .filter(Boolean)
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0 && n <= Number.MAX_SAFE_INTEGER);
}
