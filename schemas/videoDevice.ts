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

export const videoDeviceNameRule = yup
    .string()
    .trim()
    .required('请输入deviceName！')
    .max(VIDEO_NAME_MAX, `deviceName长度为1~${VIDEO_NAME_MAX}个字符`)
    .matches(/^[A-Za-z][A-Za-z0-9_]*$/, {
        message: 'deviceName须以英文字母开头，只能包含英文字母、数字和下划线',
        excludeEmptyString: true,
    });

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

/** Add or edit an rtsp camera. */
export const rtspDeviceSchema = yup.object({
    productId: requiredInt('请选择产品！'),
    protocol: yup.string().oneOf(['rtsp']).required(),
    deviceName: videoDeviceNameRule,
    host: yup.string().trim().required('请输入设备IP或域名').max(128, '设备地址不得超过128个字符'),
    port: portRule.required('请输入端口'),
    username: yup.string().trim().max(32, '用户名不得超过32个字符'),
    password: passwordRule,
    uri: yup.string().trim().max(200, '地址不得超过200个字符'),
    remark: yup.string().trim().max(100, '备注不得超过100个字符'),
});

/** Add a gb28181 camera: the password twice. */
export const gbDeviceSchema = yup.object({
    productId: requiredInt('请选择产品！'),
    protocol: yup.string().oneOf(['gb28181']).required(),
    deviceName: videoDeviceNameRule,
    manufacturer: yup.string().trim().max(64, '厂商不得超过64个字符'),
    password: passwordRule.required('请输入密码'),
    confirmPassword: yup
        .string()
        .required('请再次输入密码')
        .oneOf([yup.ref('password')], '两次输入的密码不一致，请重新输入！'),
    remark: yup.string().trim().max(100, '备注不得超过100个字符'),
});
