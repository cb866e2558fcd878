/**
 * The platform in a process of its own for `npm run bench -- forward`: the whole server as tests build it
 * (server/testing.ts: the API, the rule engine, forwarding with its production defaults) on PGlite in a data directory
 * of its own (in its worker thread, as `npm start` runs it) or in a database of its own on DATABASE_URL's PostgreSQL
 * (flows.ts STORE), DEVICES bench lamps in the lamp product's project, and the broker on a free port. Prints `{ port, projectId, dataDir, databaseUrl, devices }`, then answers on stdin:
 * - `api {"method","path","body"}`: the console's API as the admin → the answer's `data` (or `{ error }`);
 * - `stats` → `{ written, sent, selected, failed, cpu, threads, pid }` (sent/selected/failed: summed over the routes);
 * - `direct {job}` (direct.ts) → `{ rows, ms }`;
 * - `read N`: the newest N messages read as a route reads them (server/forward/messages.ts, batches of 500, one
 *   after the other), nothing sent → `{ messages, ms }`;
 * - `gaps FROM`: holes in the ids of device_messages after FROM (each one a horizon wait, server/forward/horizon.ts)
 *   → `{ gaps, maxId }`;
 * - `profile-start`, `profile-stop FILE`: a CPU profile of the main thread.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../server/db/rows';
import { readMessages } from '../../../server/forward/messages';
import { createBroker } from '../../../server/mqtt/broker';
import { createTestServer } from '../../../server/testing';
import { answerCommands, seedBenchLamps } from '../harness';
import { threadCpuMs } from '../procStat';
import { runDirect, type DirectJob } from './direct';

const count = Number(process.env.DEVICES ?? 1000);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-forward-pglite-'));
// Forwarding as `npm start` runs it: the route defaults and the 5 s gap wait (tests shorten it to 500 ms).
// Uploads go beside the data directory, removed with it (the bench kills this process: no close() runs).
const s = await createTestServer({
    pgliteDir: dataDir,
    config: { filesDir: `${dataDir}.files` },
    forward: { gapWaitMs: 5_000 },
});
const { lamp, devices } = await seedBenchLamps(s.db, count);
// A flow sees its own project's devices: the bench lamps go in the lamp product's project.
const [project] = rowsOf<{ id: number }>(
    await s.db.execute(sql`SELECT id FROM projects WHERE code = ${lamp.projectCode}`),
);
await s.db.execute(
    sql`UPDATE devices SET project_id = ${project.id} WHERE product_id = ${lamp.id} AND device_name LIKE 'bench%'`,
);
const broker = await createBroker({ db: s.db, log: () => undefined });
s.access.attach(broker);
const port = await broker.listen(0, '127.0.0.1');
process.stdout.write(
    JSON.stringify({ port, projectId: Number(project.id), dataDir, databaseUrl: s.config.databaseUrl, devices }) + '\n',
);

async function api(arg: string) {
    const { method, path: target, body } = JSON.parse(arg) as { method: string; path: string; body?: unknown };
    const res = await s.fetch(target, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as { code: number; msg: string; data: unknown };
    if (res.status !== 200 || answer.code !== 200) return { error: `${target}: ${res.status} ${answer.msg}` };
    return answer.data ?? {};
}

function stats() {
    const total = { sent: 0, selected: 0, failed: 0 };
    for (const run of s.forward.running.values()) {
        total.sent += run.worker.figures.sent;
        total.selected += run.worker.figures.selected;
        total.failed += run.worker.figures.failed;
    }
    const { user, system } = process.cpuUsage();
    return {
        written: broker.writer.written,
        ...total,
        cpu: user + system,
        threads: Object.fromEntries([...threadCpuMs('self')].map(([tid, ms]) => [tid, ms * 1000])),
        pid: process.pid,
    };
}

/** The route's read of the store alone, over the newest `count` messages. */
async function read(count: number) {
    const [{ max }] = rowsOf<{ max: string }>(await s.db.execute(sql`SELECT max(id) AS max FROM device_messages`));
    const upTo = Number(max);
    let position = upTo - count;
    let messages = 0;
    const t0 = performance.now();
    while (position < upTo) {
        const batch = await readMessages(s.db, position, upTo, 500);
        if (batch.through <= position) break;
        messages += batch.messages.length;
        position = batch.through;
    }
    return { messages, ms: performance.now() - t0 };
}

async function gaps(from: number) {
    const [row] = rowsOf<{ gaps: string; max: string }>(
        await s.db.execute(sql`
            SELECT count(*) FILTER (WHERE step > 1) AS gaps, max(id) AS max
            FROM (SELECT id, id - lag(id) OVER (ORDER BY id) AS step FROM device_messages WHERE id > ${from}) x`),
    );
    return { gaps: Number(row.gaps), maxId: Number(row.max ?? from) };
}

let profiler: Session | undefined;
answerCommands({
    api,
    stats,
    direct: (arg) => runDirect(JSON.parse(arg) as DirectJob),
    read: (arg) => read(Number(arg)),
    gaps: (arg) => gaps(Number(arg)),
    'profile-start': async () => {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
        return {};
    },
    'profile-stop': async (file) => {
        if (!profiler) return {};
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(file, JSON.stringify(profile));
        profiler.disconnect();
        profiler = undefined;
        return {};
    },
});
