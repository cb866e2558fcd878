import type { ForwardRecord } from './types';

/**
 * A destination's templates (a routing key, a NATS subject, an HTTP body, a topic): `${name}` takes the record's
 * productKey, deviceName, topic, flowName, flowId, id or ts, else the selected column of that name; `${row}` is the
 * whole selected row as JSON. A name that is none of these becomes the empty string. Values that are objects are
 * written as JSON.
 */
export function renderTemplate(template: string, record: ForwardRecord): string {
    return template.replace(/\$\{([^}]*)\}/g, (_, raw: string) => text(valueOf(raw.trim(), record)));
}

const RECORD_FIELDS = ['productKey', 'deviceName', 'topic', 'flowName', 'flowId', 'id', 'ts'] as const;

function valueOf(name: string, record: ForwardRecord): unknown {
    if (name === 'row') return record.row;
    if ((RECORD_FIELDS as readonly string[]).includes(name)) return record[name as (typeof RECORD_FIELDS)[number]];
    return Object.hasOwn(record.row, name) ? record.row[name] : undefined;
}

function text(value: unknown): string {
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
