import * as yup from 'yup';
import { requiredInt } from './rules';

/** Video (camera) devices: SPEC.md "Video devices" validation and limits. Browser forms and the server share them. */

export const VIDEO_PROTOCOLS = [
    { id: 'rtsp', name: 'RTSP' },
    { id: 'gb28181', name: 'GB28181' },
] as const;

/** pushing: 1 pushing, 0 stopped; the status filter says 全部 / 已激活 / 已停止. */
export const VIDEO_PUSH_STATES = [
    { id: 1, name: '已激活', color: 'success' },
    { id: 0, name: '已停止', color: 'default' },
] as const;

/** A standard H.264 sub-stream path: most cameras serve their second stream there. */
export const DEFAULT_RTSP_URI = '/h264/ch1/sub/av_stream';

export const VIDEO_NAME_MAX = 30;
/** The edit form's input takes up to 100 (names made elsewhere may be longer than the add form allows). */
export const VIDEO_NAME_EDIT_MAX = 100;
export const VIDEO_PASSWORD_MAX = 16;
export const VIDEO_PASSWORD_HINT = '支持英文字母、数字和下划线，最多16位';

/** SPEC.md §5 "Video devices": the messages said verbatim. */
export const VIDEO_MESSAGES = {
    product: '请选择产品！',
    deviceName: '请输入deviceName！',
    passwordMismatch: '两次输入的密码不一致，请重新输入！',
} as const;

export const VIDEO_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
export const VIDEO_NAME_PATTERN_TEXT = 'deviceName须以英文字母开头，只能包含英文字母、数字和下划线';

function nameRule(max: number) {
    return yup
        .string()
        .trim()
        .required(VIDEO_MESSAGES.deviceName)
        .max(max, `deviceName长度为1~${max}个字符`)
        .matches(VIDEO_NAME_PATTERN, { message: VIDEO_NAME_PATTERN_TEXT, excludeEmptyString: true });
}

export const videoDeviceNameRule = nameRule(VIDEO_NAME_MAX);
/** Edit: a name made elsewhere may be up to 100 long (SPEC.md "input max 100 on the edit form"). */
export const videoDeviceEditNameRule = nameRule(VIDEO_NAME_EDIT_MAX);

export const DEFAULT_RTSP_PORT = 554;

const passwordRule = yup
    .string()
    .max(VIDEO_PASSWORD_MAX, VIDEO_PASSWORD_HINT)
    .matches(/^\w*$/, { message: VIDEO_PASSWORD_HINT, excludeEmptyString: true });

const portRule = yup
    .number()
    .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
    .typeError('端口须为1~65535的整数')
    .integer('端口须为1~65535的整数')
    .min(1, '端口须为1~65535的整数')
    .max(65535, '端口须为1~65535的整数');

const hostRule = yup.string().trim().max(128, '设备地址不得超过128个字符');
const usernameRule = yup.string().trim().max(32, '用户名不得超过32个字符');
const uriRule = yup.string().trim().max(200, '地址不得超过200个字符');
const manufacturerRule = yup.string().trim().max(64, '厂商不得超过64个字符');
const remarkRule = yup.string().trim().max(100, '备注不得超过100个字符');

/** Add an rtsp camera. */
export const rtspDeviceSchema = yup.object({
    productId: requiredInt(VIDEO_MESSAGES.product),
    protocol: yup.string().oneOf(['rtsp']).required(),
    deviceName: videoDeviceNameRule,
    host: hostRule.required('请输入设备IP或域名'),
    port: portRule.required('请输入端口'),
    username: usernameRule,
    password: passwordRule,
    uri: uriRule,
    remark: remarkRule,
});

/** Edit an rtsp camera: product and protocol stay; the name may be up to 100 long. */
export const rtspDeviceEditSchema = rtspDeviceSchema.shape({ deviceName: videoDeviceEditNameRule });

/** Add a gb28181 camera: the password twice. */
export const gbDeviceSchema = yup.object({
    productId: requiredInt(VIDEO_MESSAGES.product),
    protocol: yup.string().oneOf(['gb28181']).required(),
    deviceName: videoDeviceNameRule,
    manufacturer: manufacturerRule,
    password: passwordRule.required('请输入密码'),
    confirmPassword: yup
        .string()
        .required('请再次输入密码')
        .oneOf([yup.ref('password')], VIDEO_MESSAGES.passwordMismatch),
    remark: remarkRule,
});

/** Edit a gb28181 camera (SPEC.md: id, deviceName, manufacturer, remark). */
export const gbDeviceEditSchema = yup.object({
    deviceName: videoDeviceEditNameRule,
    manufacturer: manufacturerRule,
    remark: remarkRule,
});

const whenRtsp = <T extends yup.Schema>(schema: T, required: string) =>
    schema.when('protocol', { is: 'rtsp', then: (s) => s.required(required) });

/**
 * The one edit dialog of the console: its inputs follow the device's protocol, so do its rules (rtsp edits the
 * address and account, gb28181 the manufacturer). The server checks each call with its own schema above.
 */
export const videoDeviceEditSchema = yup.object({
    productId: requiredInt(VIDEO_MESSAGES.product),
    protocol: yup.string().oneOf(['rtsp', 'gb28181']).required(),
    deviceName: videoDeviceEditNameRule,
    host: whenRtsp(hostRule, '请输入设备IP或域名'),
    port: whenRtsp(portRule, '请输入端口'),
    username: usernameRule,
    password: passwordRule,
    uri: uriRule,
    manufacturer: manufacturerRule,
    remark: remarkRule,
});

const optionalNumber = (min: number, max: number, message: string) =>
    yup
        .number()
        .transform((v, raw) => (raw === '' || raw === null || raw === undefined ? undefined : v))
        .typeError(message)
        .min(min, message)
        .max(max, message);

const codeRule = (pattern: RegExp, message: string) =>
    yup.string().trim().matches(pattern, { message, excludeEmptyString: true });

/**
 * Where the camera is and what it is (sent by both add forms): the picked point, its address, the adcode slices
 * (province, city, area: two digits each) and the dictionary codes (checked against the dictionary by the server).
 */
export const videoPlaceSchema = yup.object({
    longitude: optionalNumber(-180, 180, '经度须在-180~180之间'),
    latitude: optionalNumber(-90, 90, '纬度须在-90~90之间'),
    address: yup.string().trim().max(200, '地址不得超过200个字符'),
    pcode: codeRule(/^\d{2}$/, '省级编码须为2位数字'),
    ccode: codeRule(/^\d{2}$/, '市级编码须为2位数字'),
    acode: codeRule(/^\d{2}$/, '区县编码须为2位数字'),
    tcode: codeRule(/^\d{3}$/, '设备类型编码须为3位数字'),
    icode: codeRule(/^\d{2}$/, '行业编码须为2位数字'),
    ncode: codeRule(/^\d$/, '网络标识须为1位数字'),
});

/** The server's gb28181 add: the console checks the confirmation in the form; a call that sends one must match. */
export const gbDeviceAddSchema = gbDeviceSchema.shape({
    confirmPassword: yup
        .string()
        .test('same', VIDEO_MESSAGES.passwordMismatch, (v, ctx) => v === undefined || v === ctx.parent.password),
});
