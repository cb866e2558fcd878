import type { ForwardRecord } from './types';

/** The message body a destination sends unless told otherwise: the record's envelope and its selected row, as JSON. */
export function defaultBody(record: ForwardRecord): string {
    const { id, flowId, flowName, productKey, deviceName, topic, ts, row } = record;
    return JSON.stringify({ id, flowId, flowName, productKey, deviceName, topic, ts, row });
}
