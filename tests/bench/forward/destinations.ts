import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import pg from 'pg';

/**
 * The bench's side of each destination: a PostgreSQL table of its own (its arrival time a column default), a durable
 * RabbitMQ queue of its own, and an HTTP receiver on a free port; each counts what arrived, and the table and the
 * receiver say when each post (by its seq) arrived.
 */

export const PG_URL = process.env.FORWARD_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const AMQP_URL = process.env.FORWARD_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export const benchName = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** Epoch ms with the monotonic clock's precision (the devices' PUBACK times are taken the same way). */
export const epochMs = () => performance.timeOrigin + performance.now();

export async function postgresSide() {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const tables: string[] = [];
    return {
        /** A table with the flow's columns; `arrived` is when the row was inserted (clock_timestamp()). */
        async table(): Promise<string> {
            const name = benchName('bench_fwd');
            await admin.query(
                `CREATE TABLE ${name} (dn text, power double precision, seq bigint, at bigint, arrived timestamptz NOT NULL DEFAULT clock_timestamp())`,
            );
            tables.push(name);
            return name;
        },
        count: async (table: string) =>
            Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n),
        /** When each post with seq >= `from` arrived (epoch ms), by seq (the first arrival of a post sent twice). */
        async arrivals(table: string, from: number): Promise<Map<number, number>> {
            const { rows } = await admin.query<{ seq: string; ms: string }>(
                `SELECT seq, min(extract(epoch FROM arrived) * 1000) AS ms FROM ${table} WHERE seq >= $1 GROUP BY seq`,
                [from],
            );
            return new Map(rows.map((r) => [Number(r.seq), Number(r.ms)]));
        },
        async close() {
            for (const t of tables) await admin.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
            await admin.end();
        },
    };
}

export async function rabbitSide() {
    const connection: ChannelModel = await amqp.connect(AMQP_URL);
    const channel: Channel = await connection.createChannel();
    const queues: string[] = [];
    return {
        async queue(): Promise<string> {
            const name = benchName('bench_fwd');
            await channel.assertQueue(name, { durable: true });
            queues.push(name);
            return name;
        },
        count: async (queue: string) => (await channel.checkQueue(queue)).messageCount,
        purge: (queue: string) => channel.purgeQueue(queue),
        async close() {
            for (const q of queues) await channel.deleteQueue(q).catch(() => undefined);
            await connection.close();
        },
    };
}

/**
 * An HTTP receiver counting the records it is posted (one JSON record, or an array of them in batch mode), answering
 * 200; while `track` holds, it notes when each record's row.seq arrived (epoch ms, at the request's end).
 */
export async function httpSide() {
    const arrived = new Map<number, number>();
    let received = 0;
    let track = false;
    const server: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            const at = epochMs();
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
            const records = (Array.isArray(body) ? body : [body]) as Array<{ row?: { seq?: number } }>;
            received += records.length;
            if (track)
                for (const r of records) {
                    const seq = Number(r.row?.seq);
                    if (!arrived.has(seq)) arrived.set(seq, at);
                }
            res.end('ok');
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/forward`,
        count: () => received,
        tracking(on: boolean) {
            track = on;
            if (on) arrived.clear();
        },
        arrivals: () => arrived,
        close: () => {
            server.closeAllConnections();
            return new Promise((resolve) => server.close(resolve));
        },
    };
}

/** A port nothing listens on (taken from the system, then closed): a destination that is down. */
export async function closedPort(): Promise<number> {
    const server = createTcpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
}
