import type { ForwardRecord } from './types';

/** The message body a destination sends unless told otherwise: the record's envelope and its selected row, as JSON. */
export function defaultBody(record: ForwardRecord): string {
    const { id, flowId, flowName, productKey, deviceName, topic, ts, row } = record;
    return JSON.stringify({ id, flowId, flowName, productKey, deviceName, topic, ts, row });
}

/** A record standing for what a flow sends, for a sender's test(): the topic or subject it renders is the one checked. */
export const SAMPLE_RECORD: ForwardRecord = {
    id: 'test',
    flowId: 0,
    flowName: 'test',
    productKey: 'productKey',
    deviceName: 'deviceName',
    topic: '/sys/productKey/deviceName/thing/event/property/post',
    ts: 0,
    row: {},
};
