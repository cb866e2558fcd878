import amqp from 'amqplib';
import pg from 'pg';

/**
 * The anchors of `npm run bench -- forward`: the library a destination kind uses (pg, amqplib's confirm channel, fetch),
 * writing the rows a flow selects straight to the same table, queue or receiver, in batches of the route's size, one
 * batch after the other as a route sends them. Run in the platform's process, so the library has the same process and
 * the same Node beside it as the destination's sender.
 */

export type DirectJob =
    | { kind: 'postgres'; url: string; table: string; seconds: number; batch: number }
    | { kind: 'rabbitmq'; url: string; queue: string; seconds: number; batch: number }
    | { kind: 'http'; url: string; seconds: number; batch: number };

/** The n-th row as the bench's flow selects it: device name, power, the post's seq, the time of the message. */
const rowOf = (n: number) => ({
    dn: `bench${String(n % 1000).padStart(6, '0')}`,
    power: (n % 20000) / 10,
    seq: 900_000_000 + n,
    at: Date.now(),
});

/** The record's JSON as a destination sends it by default (server/forward/destinations/body.ts). */
const bodyOf = (n: number) =>
    JSON.stringify({
        id: `${n}-1`,
        flowId: 1,
        flowName: 'direct',
        productKey: 'a1LampDemo7',
        deviceName: rowOf(n).dn,
        topic: `/sys/a1LampDemo7/${rowOf(n).dn}/thing/event/property/post`,
        ts: Date.now(),
        row: rowOf(n),
    });

/** Batches of `batch` until `seconds` passed: rows written and the time taken. */
async function repeat(seconds: number, batch: number, write: (first: number) => Promise<void>) {
    const t0 = performance.now();
    let rows = 0;
    while (performance.now() - t0 < seconds * 1000) {
        await write(rows);
        rows += batch;
    }
    return { rows, ms: performance.now() - t0 };
}

/** One multi-row parameterized INSERT per batch, as the postgres kind writes it. */
async function postgres(job: Extract<DirectJob, { kind: 'postgres' }>) {
    const client = new pg.Client({ connectionString: job.url });
    await client.connect();
    const tuples = Array.from(
        { length: job.batch },
        (_, r) => `($${4 * r + 1},$${4 * r + 2},$${4 * r + 3},$${4 * r + 4})`,
    );
    const text = `INSERT INTO "public"."${job.table}" ("dn","power","seq","at") VALUES ${tuples.join(',')}`;
    try {
        return await repeat(job.seconds, job.batch, async (first) => {
            const values: unknown[] = [];
            for (let i = 0; i < job.batch; i++) {
                const row = rowOf(first + i);
                values.push(row.dn, row.power, row.seq, row.at);
            }
            await client.query(text, values);
        });
    } finally {
        await client.end();
    }
}

/** Persistent messages on a confirm channel, the batch's confirms awaited, as the rabbitmq kind sends them. */
async function rabbitmq(job: Extract<DirectJob, { kind: 'rabbitmq' }>) {
    const connection = await amqp.connect(job.url);
    const channel = await connection.createConfirmChannel();
    try {
        return await repeat(job.seconds, job.batch, async (first) => {
            for (let i = 0; i < job.batch; i++)
                channel.publish('', job.queue, Buffer.from(bodyOf(first + i)), {
                    messageId: `${first + i}-1`,
                    contentType: 'application/json',
                    persistent: true,
                });
            await channel.waitForConfirms();
        });
    } finally {
        await connection.close();
    }
}

/** One POST of a JSON array per batch, as the http kind sends in batch mode. */
async function http(job: Extract<DirectJob, { kind: 'http' }>) {
    return repeat(job.seconds, job.batch, async (first) => {
        const body = `[${Array.from({ length: job.batch }, (_, i) => bodyOf(first + i)).join(',')}]`;
        const response = await fetch(job.url, {
            method: 'POST',
            headers: {
                'content-type': 'application/json; charset=utf-8',
                'x-forward-id': `${first}-1`,
                'x-forward-count': String(job.batch),
            },
            body,
            redirect: 'manual',
            signal: AbortSignal.timeout(5000),
        });
        await response.text();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
    });
}

export function runDirect(job: DirectJob): Promise<{ rows: number; ms: number }> {
    if (job.kind === 'postgres') return postgres(job);
    if (job.kind === 'rabbitmq') return rabbitmq(job);
    return http(job);
}
