import * as yup from 'yup';
import { requiredInt } from './rules';

/** Edge drivers and instances (Alibaba Link IoT Edge's model): shared by the console's forms and the server. */

export const EDGE_PROTOCOLS = [
    { id: 'modbus_tcp', name: 'Modbus TCP' },
    { id: 'modbus_rtu', name: 'Modbus RTU' },
    { id: 'opc_ua', name: 'OPC UA' },
    { id: 'bacnet', name: 'BACnet' },
    { id: 'custom', name: '自定义' },
] as const;

/** A deployment's state: pending until the gateway answers. */
export const DEPLOY_STATES = [
    { id: 'pending', name: '等待应答', color: 'info' },
    { id: 'success', name: '部署成功', color: 'success' },
    { id: 'failed', name: '部署失败', color: 'error' },
    { id: 'offline', name: '网关离线', color: 'default' },
] as const;

const NAME = /^[\u4e00-\u9fa5A-Za-z0-9_\-.]+$/;
const NAME_TEXT = '名称支持中文、英文字母、数字、下划线、中划线和点号';

/** A JSON object written as text (configuration, configuration schema); empty means {}. */
export const jsonObjectText = (label: string) =>
    yup
        .string()
        .max(20000, `${label}不得超过20000个字符`)
        .test('json', `${label}必须是JSON对象`, (v) => {
            if (!v || !v.trim()) return true;
            try {
                const parsed: unknown = JSON.parse(v);
                return !!parsed && typeof parsed === 'object' && !Array.isArray(parsed);
            } catch {
                return false;
            }
        });

export const edgeDriverSchema = yup.object({
    name: yup.string().trim().required('请输入驱动名称').max(64, '驱动名称不得超过64个字符').matches(NAME, NAME_TEXT),
    version: yup
        .string()
        .trim()
        .required('请输入驱动版本')
        .matches(/^\d+\.\d+\.\d+$/, { message: '版本号格式为x.y.z，例如1.0.0', excludeEmptyString: true }),
    protocol: yup
        .string()
        .required('请选择协议类型')
        .oneOf(
            EDGE_PROTOCOLS.map((p) => p.id),
            '请选择协议类型',
        ),
    description: yup.string().trim().max(200, '描述不得超过200个字符'),
    configSchema: jsonObjectText('配置模板'),
});

export const edgeInstanceSchema = yup.object({
    name: yup.string().trim().required('请输入实例名称').max(64, '实例名称不得超过64个字符').matches(NAME, NAME_TEXT),
    spec: yup.string().trim().max(64, '规格不得超过64个字符'),
    gatewayId: requiredInt('请选择网关设备'),
    remark: yup.string().trim().max(200, '备注不得超过200个字符'),
});

export const edgeInstanceDriverSchema = yup.object({
    driverId: requiredInt('请选择驱动'),
    config: jsonObjectText('驱动配置'),
});
