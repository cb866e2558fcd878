import * as yup from 'yup';
import { integer, requiredText, UNKNOWN_FIELDS } from './fields';
import { renderTemplate } from './template';
import { DestinationError, type DestinationKind, type SenderContext } from './types';

/**
 * 转发到平台内的主题 (republish): each selected row, as JSON, published by the platform on a topic rendered from the
 * template, e.g. a device's downlink topic `/${productKey}/${deviceName}/user/get`, wherever that device is connected
 * (any process of a cluster). A topic no device subscribes to takes the message and drops it, as MQTT does.
 */

export interface RepublishConfig {
    topicTemplate: string;
    qos: number;
}

const schema: yup.ObjectSchema<RepublishConfig> = yup
    .object({
        topicTemplate: requiredText('目标主题', 512).test(
            'topic',
            '目标主题须以 / 开头，且不含 + 或 # 通配符',
            (v) => !v || (v.startsWith('/') && !/[+#]/.test(v)),
        ),
        qos: integer('QoS', 0, 1).default(0),
    })
    .exact(UNKNOWN_FIELDS);

function open(config: RepublishConfig, context: SenderContext) {
    const publish = () => {
        const p = context.platform?.publish;
        if (!p) throw new DestinationError('平台的设备接入（MQTT）没有运行，无法转发到主题');
        return p;
    };
    return {
        async send(records: Parameters<typeof renderTemplate>[1][]) {
            const p = publish();
            for (const r of records)
                await p(renderTemplate(config.topicTemplate, r), JSON.stringify(r.row), config.qos === 1 ? 1 : 0);
        },
        async test() {
            publish();
        },
        async close() {},
    };
}

export const republishDestination: DestinationKind<RepublishConfig> = {
    kind: 'republish',
    label: '平台内主题',
    schema,
    secretFields: [],
    open,
};
