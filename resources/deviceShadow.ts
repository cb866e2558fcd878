import EditIcon from '@mui/icons-material/Edit';
import type { ApiCall, ContractPaths } from '../dataProvider/types';
import { shadowDesiredSchema } from '../schemas/deviceShadow';
import type { Action, Row, Section } from '../src/engine/vocabulary';

/**
 * The device page's 设备影子 tab (resources/deviceDetail.tsx): the device's shadow as Alibaba keeps it (reported and
 * desired state, each key's update time, the version) from GET /api/device/shadow, and 编辑期望值, which sends the
 * desired state after a confirmation (POST /api/device/shadow/update; docs/device-access.md "设备影子").
 */

export const SHADOW_CALLS: Record<string, ApiCall<ContractPaths>> = {
    shadow: { get: '/api/device/shadow', read: 'data' },
    updateShadow: { post: '/api/device/shadow/update', read: 'data' },
};

const documentOf = (data: Record<string, unknown> | undefined) => (data?.document ?? {}) as Row;
const desiredOf = (doc: Row) => ((doc.state ?? {}) as { desired?: Record<string, unknown> }).desired ?? {};

/** Edits the whole desired state as JSON; the version sent is the one shown plus one (a change meanwhile is a 409). */
function editDesired(refresh: string[]): Action {
    return {
        kind: 'form',
        label: '编辑期望值',
        icon: EditIcon,
        variant: 'contained',
        right: 'device.downlink',
        title: '编辑期望值（desired）',
        width: 'md',
        fields: [
            [
                'desired',
                {
                    label: '期望值（JSON 对象）',
                    input: 'code',
                    code: { language: 'json' },
                    required: true,
                    helperText: '整个期望状态，例如 {"color":"green","brightness":80}；{} 清空期望值',
                },
            ],
        ],
        schema: shadowDesiredSchema,
        defaults: ({ data }) => ({ desired: JSON.stringify(desiredOf(documentOf(data)), null, 2) }),
        submit: {
            call: 'updateShadow',
            params: ({ record, values, data }) => ({
                deviceId: record.deviceId,
                desired: values?.desired,
                version: Number(documentOf(data).version ?? 0) + 1,
            }),
        },
        confirm: ({ record }) =>
            `确定将期望值下发到设备「${String(record.deviceName ?? '')}」吗？\n设备在线时立即下发（method: control），离线时保存，在它下次上线订阅 /shadow/get 时下发。`,
        confirmTitle: '下发期望值',
        success: (answer) =>
            (answer as Row | undefined)?.sent ? '期望值已保存并下发到设备' : '期望值已保存，设备上线后下发',
        note: '影子版本在保存时加 1；若设备在此期间更新了影子，保存会提示版本冲突，请刷新后重试。',
        refresh,
    };
}

/** The tab's one section; `refresh`: the resources to reload after a save (the detail page's). */
export function shadowSections(refresh: string[]): Section[] {
    return [
        {
            kind: 'document',
            title: '设备影子',
            source: { call: 'shadow', params: ({ record }) => ({ deviceId: record.deviceId }) },
            refresh: '刷新',
            fields: [
                ['version', { label: '影子版本', number: { grouping: false } }],
                ['updateTime', { label: '最后更新时间' }],
            ],
            json: [
                { label: '设备上报（reported）', path: 'state.reported' },
                { label: '期望值（desired）', path: 'state.desired' },
                { label: '元数据（metadata，各属性更新时间）', path: 'metadata' },
            ],
            empty: {
                when: (answer) => answer.exists === false,
                text: '该设备还没有设备影子',
                hint: ({ record }) =>
                    `设备 ${String(record.deviceName ?? '')} 向 /shadow/update 上报状态后在此显示；也可先编辑期望值，设备上线后下发。`,
            },
            actions: [editDesired(refresh)],
        },
    ];
}
