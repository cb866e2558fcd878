import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { ServerProcess } from '../../server/serverProcess';

/**
 * A platform process's own figures at a minute's end, from its /metrics (METRICS_TOKEN): the device messages waiting
 * for their batch write, the consumer groups' backlog (the cluster's, shared) and callers waiting for a PostgreSQL
 * connection: where a post waits when its PUBACK is late.
 */
export const METRICS_TOKEN = 'soak-metrics';

export interface PlatformFigures {
    ingestQueue: number;
    amqpBacklog: number;
    poolWaiting: number;
}

export async function platformFigures(p: ServerProcess): Promise<PlatformFigures | undefined> {
    try {
        const res = await fetch(`${p.url}/metrics`, {
            headers: { authorization: `Bearer ${METRICS_TOKEN}` },
            signal: AbortSignal.timeout(5_000),
        });
        const families = parsePrometheusTextFormat(await res.text());
        const sum = (name: string, label?: [string, string]) =>
            (families.find((f) => f.name === name)?.metrics ?? [])
                .filter((m) => !label || (m as { labels?: Record<string, string> }).labels?.[label[0]] === label[1])
                .reduce((s, m) => s + Number((m as { value?: string }).value ?? 0), 0);
        return {
            ingestQueue: sum('iot_ingest_queue_depth'),
            amqpBacklog: sum('iot_amqp_backlog'),
            poolWaiting: sum('iot_db_pool_connections', ['state', 'waiting']),
        };
    } catch {
        return undefined;
    }
}
