import { createServer, type IncomingMessage } from 'node:http';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { createTestServer, type TestServer } from '../../server/testing';
import { randomName, sequenced, serviceReachable, startSequenceFlow, type SequencedDevice } from './forwardSupport';
import { startBroker, until } from './mqttSupport';
import { lamp, ok, online } from './rulesSupport';

/**
 * A poison message in data forwarding (issue 39): a post the destination refuses for good (a value its column type
 * does not take, an HTTP 422) goes to the dead letters with its last error after its attempts, and the posts after it
 * are delivered (the flow does not stop). 重新投递 before the cause is fixed fails and keeps it; after, delivers it.
 */

const HOST = '127.0.0.1';
const POISON = 2.5;
const pgAvailable = await serviceReachable('PostgreSQL', 5432);

/** A destination that refuses POISON until `fix()`; `seqs()` is what it took, in order. */
interface Refusing {
    destination: { kind: string; config: Record<string, unknown> };
    seqs(): Promise<number[]>;
    fix(): Promise<void>;
    /** The dead letter's error names the cause. */
    error: RegExp;
    close(): Promise<void>;
}

/** A table whose `seq` column is an integer: 2.5 is refused (22P02) until the column becomes numeric. */
async function integerTable(): Promise<Refusing> {
    const admin = new pg.Client({ connectionString: `postgres://postgres@${HOST}:5432/test` });
    await admin.connect();
    const table = randomName('fwddead');
    await admin.query(`CREATE TABLE ${table} (n bigserial, dn text, seq int)`);
    return {
        destination: {
            kind: 'postgres',
            config: { host: HOST, port: 5432, user: 'postgres', password: '', database: 'test', table },
        },
        seqs: async () => (await admin.query(`SELECT seq FROM ${table} ORDER BY n`)).rows.map((r) => Number(r.seq)),
        fix: async () => void (await admin.query(`ALTER TABLE ${table} ALTER COLUMN seq TYPE numeric`)),
        error: /数据不符合数据表 public\.fwddead_\w+ 的列类型/,
        close: async () => {
            await admin.query(`DROP TABLE IF EXISTS ${table}`);
            await admin.end();
        },
    };
}

/** An HTTP server of the test's own answering 422 to POISON until fixed. */
async function pickyReceiver(): Promise<Refusing> {
    const got: number[] = [];
    let refusing = true;
    const server = createServer(
        (req, res) =>
            void text(req).then((body) => {
                const seq = Number(JSON.parse(body).row.seq);
                if (refusing && seq === POISON) return void res.writeHead(422).end('seq 不是整数');
                got.push(seq);
                res.end('ok');
            }),
    );
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    const port = (server.address() as { port: number }).port;
    return {
        destination: { kind: 'http', config: { url: `http://${HOST}:${port}/hook`, method: 'POST' } },
        seqs: async () => got,
        fix: async () => void (refusing = false),
        error: /应答 HTTP 422：seq 不是整数/,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}

function text(req: IncomingMessage): Promise<string> {
    return new Promise((resolve) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => resolve(body));
    });
}

const distinct = (seqs: number[]) => seqs.filter((seq, i) => seqs.indexOf(seq) === i);

interface DeadLetter {
    id: number;
    flowId: number;
    deviceName: string;
    row: { dn: string; seq: number };
    error: string;
    attempts: number;
}

const CASES = [
    { name: 'PostgreSQL column type', available: pgAvailable, open: integerTable },
    { name: 'HTTP 422', available: true, open: pickyReceiver },
];

describe('a poison message in a flow', () => {
    let s: TestServer;
    let url: string;
    let projectId: number;
    const cleanups: Array<() => Promise<unknown>> = [];

    beforeAll(async () => {
        s = await createTestServer({ forward: { route: { idleMs: 50, batch: 10, backoffMs: () => 100 } } });
        const started = await startBroker(s);
        url = started.url;
        cleanups.push(() => started.broker.close());
        projectId = Number(rowsOf<{ id: number }>(await s.db.execute(sql`SELECT min(id) AS id FROM projects`))[0].id);
    }, 120_000);

    afterAll(async () => {
        for (const f of cleanups.reverse()) await f().catch(() => undefined);
        await s?.close();
    });

    async function lampOfProject(): Promise<SequencedDevice & { productKey: string }> {
        const l = await lamp(s);
        await s.db.execute(sql`UPDATE devices SET project_id = ${projectId} WHERE id = ${l.deviceId}`);
        const device = await online(url, l);
        cleanups.push(async () => device.client.end(true));
        return { ...sequenced(device), productKey: l.productKey };
    }

    async function flowTo(device: { productKey: string; deviceName: string }, refusing: Refusing) {
        const from = `/sys/${device.productKey}/${device.deviceName}/thing/event/property/post`;
        const flow = { projectId, name: randomName('毒消息'), from, destination: refusing.destination };
        return startSequenceFlow(s, flow, cleanups);
    }

    const deadLetters = async (flowId: number) =>
        (await ok<{ records: DeadLetter[] }>(s, 'GET', `/api/forward/dead-letter/list?flowId=${flowId}`)).records;
    const redeliver = (id: number) =>
        ok<{ sent: number; failed: Array<{ id: number; error: string }> }>(
            s,
            'POST',
            '/api/forward/dead-letter/redeliver',
            { ids: [id] },
        );
    const figures = async (flowId: number) =>
        (await ok<{ figures: { sent: number; dead: number } }>(s, 'GET', `/api/forward/flow/detail?id=${flowId}`))
            .figures;

    for (const c of CASES)
        it.skipIf(!c.available)(
            `${c.name}: dead-lettered with its error, the flow goes on, redelivered once fixed`,
            async () => {
                const refusing = await c.open();
                cleanups.push(() => refusing.close());
                const device = await lampOfProject();
                const flowId = await flowTo(device, refusing);

                for (const seq of [1, 2, POISON, 3, 4]) await device.post(seq);
                await until(async () => (await refusing.seqs()).includes(4), 15_000);
                await until(async () => (await deadLetters(flowId)).length === 1, 5_000);
                const [dead] = await deadLetters(flowId);
                expect(dead).toMatchObject({ deviceName: device.deviceName, attempts: 3 });
                expect(dead.row).toEqual({ dn: device.deviceName, seq: POISON });
                expect(dead.error).toMatch(refusing.error);
                // The flow did not stop: what was posted after the poison arrives too.
                await device.post(5);
                await until(async () => (await refusing.seqs()).includes(5), 15_000);
                // At least once: an HTTP receiver takes the records before the poison again at each attempt.
                expect(distinct(await refusing.seqs())).toEqual([1, 2, 3, 4, 5]);

                // 重新投递 before the cause is fixed: refused again, kept.
                const early = await redeliver(dead.id);
                expect(early.sent).toBe(0);
                expect(early.failed).toEqual([{ id: dead.id, error: expect.stringMatching(refusing.error) }]);
                expect(await deadLetters(flowId)).toHaveLength(1);

                await refusing.fix();
                expect(await redeliver(dead.id)).toEqual({ sent: 1, failed: [] });
                const seqs = await refusing.seqs();
                expect(distinct(seqs)).toEqual([1, 2, 3, 4, 5, POISON]);
                expect(seqs.filter((seq) => seq === POISON)).toHaveLength(1);
                expect(await deadLetters(flowId)).toEqual([]);
                expect(await figures(flowId)).toMatchObject({ sent: 6, dead: 0 });
            },
            60_000,
        );
});
