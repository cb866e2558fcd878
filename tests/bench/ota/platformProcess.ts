/**
 * The platform for `npm run bench -- ota`, in a process of its own (bundled as `npm start` bundles the server): PGlite
 * in a data directory of its own, the demo seed plus DEVICES lamps, the broker on a free port, the whole app (routes,
 * rights, the OTA service and its scheduler) on a free HTTP port, and beside it a bare node:http server of the same
 * process serving one file (the anchor of the download figure). Prints one JSON line
 * `{ port, mqttPort, barePort, token, dataDir, devices }`, then answers on stdin:
 * - `package ID`: the bare server serves that package's stored file from now on → `{ url }` (a signed download URL)
 * - `stats` → `{ rss, cpu }` (cpu: µs of CPU this process used so far)
 */
import { createReadStream, mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { createApp } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { openDatabase } from '../../../server/db/client';
import { users } from '../../../server/db/schema';
import { createAccessHub } from '../../../server/mqtt/access';
import { createBroker } from '../../../server/mqtt/broker';
import { packageById, packageFile } from '../../../server/ota/packages';
import { createOtaService } from '../../../server/ota/service';
import { createRuleEngine } from '../../../server/rules/engine';
import { createSession } from '../../../server/sso/sessions';
import { ensureAdmin } from '../../../server/sso/users';
import { answerCommands, seedBenchLamps } from '../harness';

const count = Number(process.env.DEVICES ?? 10_000);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-ota-'));
// DATABASE_URL (the bench's OTA_BENCH_DATABASE_URL): an empty PostgreSQL database; else PGlite in the data directory.
const handle = await openDatabase({
    databaseUrl: process.env.DATABASE_URL || undefined,
    pgliteDir: path.join(dataDir, 'pgdata'),
});
await ensureAdmin(handle.db, 'bench_password');
const { devices, lamp } = await seedBenchLamps(handle.db, count);
const listen = (server: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown }) =>
    new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );

const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
const access = createAccessHub();
const rules = createRuleEngine({ db: handle.db, access, timeZone: config.timeZone });
await rules.attach();
const ota = createOtaService({ db: handle.db, access, config });
const app = createApp({ db: handle.db, config, access, rules, ota });
const port = await listen(createAdaptorServer({ fetch: app.fetch }));
// The pushed download URLs name this port (OTA_BASE_URL unset: http://127.0.0.1:PORT).
config.port = port;
const broker = await createBroker({ db: handle.db, log: () => undefined, connectTimeoutMs: 120_000 });
access.attach(broker);
const mqttPort = await broker.listen(0, '127.0.0.1');

// The anchor: node:http streaming the same file, nothing else (no routing, no signature check, no database).
let bareFile = '';
const bare = createServer((_req, res) => {
    const size = statSync(bareFile).size;
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
    createReadStream(bareFile).pipe(res);
});
const barePort = await listen(bare);
const [row] = await handle.db.select().from(users).where(eq(users.username, 'admin'));
const token = await createSession(handle.db, row.id, new Date());

process.stdout.write(JSON.stringify({ port, mqttPort, barePort, token, dataDir, devices, productId: lamp.id }) + '\n');
answerCommands({
    // `package ID`: the bare server serves that package's stored file; answers a signed download URL of it.
    package: async (id) => {
        const row = await packageById(handle.db, Number(id));
        bareFile = (await packageFile(config.filesDir, row))!.file;
        return { url: `http://127.0.0.1:${port}${await ota.signer.sign(row.id, Date.now() + 3_600_000)}` };
    },
    stats: () => ({ rss: process.memoryUsage().rss, cpu: process.cpuUsage().user + process.cpuUsage().system }),
});
