import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { eq } from 'drizzle-orm';
import { createAmqpService, type AmqpService } from './amqp/service';
import { createApp, type App } from './app';
import { loadConfig, type ServerConfig } from './config';
import { openDatabase, type Db } from './db/client';
import { buildTemplate, hasTemplate, migratedTemplate, templateDirOf } from './db/template';
import { createTestDatabase } from './db/testDatabase';
import { users } from './db/schema';
import type { AppDeps } from './deps';
import { createAccessHub, type AccessHub } from './mqtt/access';
import { seedDatabase } from './seed';
import { seedDemoOta } from './seed/ota';
import { createSimulator, type Simulator } from './simulation/simulator';
import { createRuleEngine, type RuleEngine, type RuleEngineOptions } from './rules/engine';
import { createVideoRelay } from './video/relay';
import { createOtaService, type OtaService } from './ota/service';
import { createRemoteConfigService, type RemoteConfigService } from './remoteConfig/service';
import { createForwardService, type ForwardService, type ForwardServiceOptions } from './forward/service';
import { platformSecretBox } from './forward/secrets';
import { linkKey } from './http/signedLinks';
import { createSipServer, type SipServer, type SipServerOptions } from './video/sip';
import { COOKIE_NAME } from './sso/auth';
import { createSession } from './sso/sessions';
import { ADMIN_USERNAME, ensureAdmin } from './sso/users';

/** The admin password of every test server (sign-in tests type it into the form). */
export const TEST_ADMIN_PASSWORD = 'Admin_123456';

export interface TestServerOptions {
    /** Demo content (projects, products, thing models, logs). Default true. Reference data is always there. */
    seed?: boolean;
    /** With the demo, the live demo too (server/seed/live.ts): start it with startLiveDemo once a broker attaches. */
    live?: boolean;
    config?: Partial<ServerConfig>;
    now?: AppDeps['now'];
    clientIp?: AppDeps['clientIp'];
    throttle?: AppDeps['throttle'];
    logError?: AppDeps['logError'];
    /** A PGlite data directory (kept on close), so a test can close the server and open it again on the same data. */
    pgliteDir?: string;
    /** Server-side subscription timings (defaults: poll 250 ms, backlog sweep 10 s). */
    amqp?: {
        pollMs?: number;
        sweepMs?: number;
        leaseMs?: number;
        log?: (message: string) => void;
        maxFrameBytes?: number;
        handshakeTimeoutMs?: number;
    };
    /** Rule engine options (notification back-off in tests). */
    rules?: RuleEngineOptions;
    /** Forwarding's options (route timings, gap wait). */
    forward?: Partial<Pick<ForwardServiceOptions, 'route' | 'gapWaitMs' | 'leaseMs'>>;
    /** A GB28181 SIP endpoint on 127.0.0.1 (a free UDP port) the API uses for gb28181 push. */
    sip?: Pick<SipServerOptions, 'keepaliveTimeoutMs' | 'play'>;
}

export interface TestServer {
    app: App;
    /** app.fetch signed in as admin (the Authorization cookie is added unless the call sets its own Cookie). */
    fetch(path: string, init?: RequestInit): Promise<Response>;
    /** app.fetch with no session. */
    anonFetch(path: string, init?: RequestInit): Promise<Response>;
    /** The admin's session token: send it as the Authorization header or cookie. */
    token: string;
    db: Db;
    /** Device access: a broker started in a test attaches here, so disable and delete disconnect. */
    access: AccessHub;
    /** The device simulator of this server (its devices connect once a broker attaches to `access`). */
    simulator: Simulator;
    /** Server-side subscription: attach a started broker (`amqp.attach(broker)`), listen with `amqp.listen(0)`. */
    amqp: AmqpService;
    /** The rule engine of this server (it acts on messages of a broker attached to `access`). */
    rules: RuleEngine;
    /** The SIP endpoint, when asked for. */
    sip?: SipServer;
    /** OTA: `ota.tick()` runs the scheduler now (it also runs every second once a broker attaches). */
    ota: OtaService;
    /** Remote configuration: its signer makes download URLs as a device is told them. */
    remoteConfig: RemoteConfigService;
    forward: ForwardService;
    kind: 'pglite' | 'postgres';
    config: ServerConfig;
    close(): Promise<void>;
}

/**
 * A complete platform in-process: in-memory PGlite, or, when DATABASE_URL is set, that PostgreSQL in a
 * database t_<random> of its own, copied from a migrated template and dropped on close (server/db/testDatabase.ts). For msw under jsdom:
 * `http.all('*', ({ request }) => server.app.fetch(request))` with the token in the Authorization header.
 */
export async function createTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
    // On PostgreSQL a database of the server's own, copied from a migrated template and dropped on close.
    const testDatabase = process.env.DATABASE_URL ? await createTestDatabase(process.env.DATABASE_URL) : undefined;
    const databaseUrl = testDatabase?.url;
    const ownDir = databaseUrl || opts.pgliteDir ? undefined : await templateCopyDir();
    const pgliteDir = opts.pgliteDir ?? ownDir;
    const dropOwn = async () => {
        await testDatabase?.drop();
        if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    };
    const handle = await openDatabase(
        databaseUrl ? { databaseUrl } : pgliteDir ? { pgliteDir } : { loadDataDir: await migratedTemplate() },
    ).catch(async (err: unknown) => {
        await dropOwn();
        throw err;
    });
    try {
        const config: ServerConfig = {
            ...loadConfig({}),
            databaseUrl,
            adminPassword: TEST_ADMIN_PASSWORD,
            seedDemo: opts.seed ?? true,
            publicDir: path.join(os.tmpdir(), 'iot-console-test-no-build'),
            // Uploads of each test server go to a directory of its own, removed on close.
            filesDir: opts.config?.filesDir ?? mkdtempSync(path.join(os.tmpdir(), 'iot-test-files-')),
            ...opts.config,
        };
        await ensureAdmin(handle.db, TEST_ADMIN_PASSWORD);
        await seedDatabase(handle.db, { demo: config.seedDemo, live: opts.live, port: config.port });
        const access = createAccessHub();
        const simulator = createSimulator({ db: handle.db, access, log: () => undefined });
        const amqp = createAmqpService({
            db: handle.db,
            backlogMax: config.amqpBacklogMax,
            backlogHours: config.amqpBacklogHours,
            databaseUrl,
            log: () => undefined,
            ...opts.amqp,
        });
        await amqp.start();
        const rules = createRuleEngine({
            db: handle.db,
            access,
            timeZone: config.timeZone,
            now: opts.now,
            logError: opts.logError,
            options: opts.rules,
        });
        await rules.attach();
        // Live video segments of this test server go under its own files directory (removed on close).
        const video = createVideoRelay({
            dir: opts.config?.videoDir ?? path.join(config.filesDir, 'video'),
            ffmpegPath: config.ffmpegPath,
        });
        const sip = opts.sip
            ? await createSipServer({ db: handle.db, port: 0, host: '127.0.0.1', ...opts.sip })
            : undefined;
        const ota = createOtaService({ db: handle.db, access, config, now: opts.now, logError: opts.logError });
        // The live demo's firmware and finished batch (server/seed/ota.ts), as the first start writes them.
        if (config.seedDemo && opts.live) await seedDemoOta(handle.db, config);
        const remoteConfig = createRemoteConfigService({
            db: handle.db,
            access,
            config,
            now: opts.now,
            logError: opts.logError,
        });
        const forward = createForwardService({
            db: handle.db,
            timeZone: config.timeZone,
            box: platformSecretBox(linkKey(handle.db)),
            access,
            log: () => undefined,
            gapWaitMs: 500,
            ...opts.forward,
        });
        await forward.start();
        const app = createApp({
            ota,
            remoteConfig,
            forward,
            amqp,
            rules,
            access,
            simulator,
            video,
            sip,
            db: handle.db,
            config,
            now: opts.now,
            clientIp: opts.clientIp,
            throttle: opts.throttle,
            logError: opts.logError,
        });
        const [admin] = await handle.db.select().from(users).where(eq(users.username, ADMIN_USERNAME));
        const token = await createSession(handle.db, admin.id, opts.now?.() ?? new Date());
        const call =
            (withSession: boolean) =>
            (target: string, init: RequestInit = {}) => {
                const headers = new Headers(init.headers);
                if (withSession && !headers.has('cookie')) headers.set('cookie', `${COOKIE_NAME}=${token}`);
                return Promise.resolve(app.request(target, { ...init, headers }));
            };
        return {
            app,
            fetch: call(true),
            anonFetch: call(false),
            token,
            db: handle.db,
            access,
            simulator,
            amqp,
            rules,
            sip,
            ota,
            remoteConfig,
            forward,
            kind: handle.kind,
            config,
            close: async () => {
                await simulator.close();
                await ota.close();
                await forward.close();
                await remoteConfig.close();
                await amqp.close();
                await rules.close();
                await video.close();
                await sip?.close();
                await handle.close();
                await dropOwn();
                if (!opts.config?.filesDir) rmSync(config.filesDir, { recursive: true, force: true });
            },
        };
    } catch (err) {
        await handle.close();
        await dropOwn();
        throw err;
    }
}

/**
 * An empty directory of the test server's own for its PGlite database, which openDatabase fills from the migrated
 * directory template (server/db/template.ts): copying its files and starting on them took 1.1-1.4 s here, loading the
 * template's tarball into memory 2.4-2.8 s, for each of the hundreds of servers the tests make. Undefined when the
 * template has no directory form (the tarball is loaded then). Removed on close.
 */
async function templateCopyDir(): Promise<string | undefined> {
    if (!hasTemplate()) await buildTemplate();
    if (!existsSync(path.join(templateDirOf(), 'PG_VERSION'))) return undefined;
    return mkdtempSync(path.join(os.tmpdir(), 'iot-test-pglite-'));
}
