import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createAdaptorServer } from '@hono/node-server';
import { boundConnections, httpBounds } from './http/connections';
import { keepIdleConnections } from './httpIdle';
import { loadConfig, type ServerConfig } from './config';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, pgliteDirOf, pgliteInWorker, type DatabaseHandle } from './db/client';
import { compilePgliteWasm } from './db/pgliteRemote';
import { DataDirLockedError } from './db/lock';
import { PRODUCT_NAME } from './sso/page';
import { ADMIN_USERNAME, ensureAdmin, prepareAdminPassword } from './sso/users';
import type { NodeHandle } from './cluster/node';
import { createShutdown, type Shutdown } from './shutdown';
import { loadTlsOrExit, redirectToHttps, startTlsListeners } from './tls/listeners';

type HttpServer = Server;

/** The longest the first start's seed waits for the first request to be answered. */
const SEED_AFTER_MS = 200;

function describeDatabase(config: ServerConfig): string {
    if (!config.databaseUrl) return `PGlite（${pgliteDirOf(config.dataDir)}）`;
    try {
        const url = new URL(config.databaseUrl);
        url.password = url.password ? '***' : '';
        return `PostgreSQL（${url.toString()}）`;
    } catch {
        return 'PostgreSQL';
    }
}

/** Every URL the console answers on: localhost, plus each IPv4 interface when bound to all of them. */
function addresses(host: string, port: number): string[] {
    if (host !== '0.0.0.0' && host !== '::') return [`http://${host.includes(':') ? `[${host}]` : host}:${port}/`];
    const list = [`http://localhost:${port}/`];
    for (const infos of Object.values(os.networkInterfaces())) {
        for (const info of infos ?? []) {
            if (info.family === 'IPv4' && !info.internal) list.push(`http://${info.address}:${port}/`);
        }
    }
    return list;
}

/** The first URL's host (localhost when bound to every interface). */
function urls0(host: string, port: number): string {
    return addresses(host, port)[0];
}

function hostOf(url: string): string {
    return new URL(url).hostname;
}

function listen(server: HttpServer, port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
            server.off('error', reject);
            resolve((server.address() as AddressInfo).port);
        });
    });
}

/** `load` run at the first call only; every call answers its one promise. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
    let loading: Promise<T> | undefined;
    return () => (loading ??= load());
}

/** The database (PGlite in DATA_DIR, or DATABASE_URL), migrated; a data directory another process holds ends the start. */
async function openDatabaseOrExit(config: ServerConfig, whileStarting: () => void): Promise<DatabaseHandle> {
    try {
        return await openDatabase(
            config.databaseUrl
                ? { databaseUrl: config.databaseUrl, whileStarting }
                : { pgliteDir: pgliteDirOf(config.dataDir), whileStarting },
        );
    } catch (err) {
        if (err instanceof DataDirLockedError) {
            console.error(err.message);
            process.exit(1);
        }
        throw err;
    }
}

/** The console's port; a taken one ends the start, naming PORT. */
async function listenOrExit(server: HttpServer, config: ServerConfig, handle: DatabaseHandle): Promise<number> {
    try {
        return await listen(server, config.port, config.host);
    } catch (err) {
        await handle.close();
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
            console.error(
                `端口 ${config.port} 已被占用，请用 PORT 指定其他端口。\n` +
                    `Port ${config.port} is already in use; set PORT to another port.`,
            );
            process.exit(1);
        }
        throw err;
    }
}

interface DeviceListeners {
    listen(port: number, host: string): Promise<number>;
}

/**
 * Plain MQTT and AMQP on MQTT_PORT and AMQP_PORT (none with TLS_ONLY=1): the start's lines for each. A taken port
 * leaves the rest running and says how to choose another.
 */
async function listenDeviceAccess(
    broker: DeviceListeners,
    amqp: DeviceListeners,
    config: ServerConfig,
    port: number,
): Promise<{ mqttLine: string; amqpLine: string }> {
    // TLS_ONLY=1: no plain MQTT and AMQP (reported as unbound, so /platform shows only the TLS endpoints).
    if (config.tlsOnly) {
        config.unboundListeners.push('mqtt', 'amqp');
        return { mqttLine: 'MQTT、AMQP 明文端口: 已关闭（TLS_ONLY=1），明文 HTTP 只跳转到 HTTPS', amqpLine: '' };
    }
    return { mqttLine: await listenMqtt(broker, config, port), amqpLine: await listenAmqp(amqp, config, port) };
}

async function listenMqtt(broker: DeviceListeners, config: ServerConfig, port: number): Promise<string> {
    const shown = hostOf(urls0(config.host, port));
    try {
        // The port taken (MQTT_PORT=0 picks one): GET /api/platform/info tells integrators this one.
        config.mqttPort = await broker.listen(config.mqttPort, config.host);
        return `MQTT: mqtt://${shown}:${config.mqttPort}（设备接入），WebSocket: ws://${shown}:${port}/mqtt`;
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        config.unboundListeners.push('mqtt');
        return (
            `MQTT 端口 ${config.mqttPort} 已被占用（例如本机已运行 Mosquitto），设备暂不能通过 TCP 接入；` +
            `请用 MQTT_PORT 指定其他端口（MQTT_PORT=0 自动选择空闲端口）后重启。WebSocket 接入照常: ws://${shown}:${port}/mqtt\n` +
            `MQTT port ${config.mqttPort} is in use; set MQTT_PORT to another port (0 picks a free one).`
        );
    }
}

async function listenAmqp(amqp: DeviceListeners, config: ServerConfig, port: number): Promise<string> {
    try {
        config.amqpPort = await amqp.listen(config.amqpPort, config.host); // AMQP_PORT=0 picks one: /platform shows it
        return `AMQP: amqp://${hostOf(urls0(config.host, port))}:${config.amqpPort}（服务端订阅，AMQP 1.0）`;
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        config.unboundListeners.push('amqp');
        return (
            `AMQP 端口 ${config.amqpPort} 已被占用（例如本机已运行 RabbitMQ），服务端订阅的消费端暂不能连接，消息在消费者组中堆积；` +
            `请用 AMQP_PORT 指定其他端口（AMQP_PORT=0 自动选择空闲端口）后重启。\n` +
            `AMQP port ${config.amqpPort} is in use; set AMQP_PORT to another port (0 picks a free one).`
        );
    }
}

/**
 * SIGINT and SIGTERM: readiness answers 503 first (the load balancer takes this process out), then devices are closed
 * once what they sent is stored and acknowledged (server/cluster/readiness.ts), then `closeAll` stops the rest, all
 * within STOP_TIMEOUT (server/shutdown.ts).
 */
function stopOnSignals(node: Pick<NodeHandle, 'drain'>, shutdown: Shutdown, closeAll: () => void): void {
    let stoppingSince = 0;
    const stop = (signal: NodeJS.Signals) => {
        if (stoppingSince) {
            // Ctrl+C reaches both `npm start`'s launcher (which forwards it) and this process: a signal
            // right after the first is that echo; a later one means the user insists.
            if (Date.now() - stoppingSince < 1500) return;
            console.error('强制退出 / forced exit');
            process.exit(1);
        }
        stoppingSince = Date.now();
        console.log(`收到 ${signal}，正在停止…`);
        shutdown.begin();
        shutdown.enter({ zh: '排空设备连接', en: 'draining devices' });
        void node.drain().then(closeAll, closeAll);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
}

/** Stops taking requests, then `closeRest`, then the process exits. */
function closeServer(server: HttpServer, shutdown: Shutdown, closeRest: () => Promise<void>): void {
    shutdown.enter({ zh: '结束进行中的 HTTP 请求', en: 'finishing HTTP requests' });
    // Idle keep-alive sockets would hold close() open; busy ones get a few seconds to finish.
    server.close(() => void closeRest().finally(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
}

/** The SIP endpoint for gb28181 cameras, and the start's line for it (a taken port: none, and how to choose another). */
async function startSip(
    createSipServer: typeof import('./video/sip').createSipServer,
    handle: DatabaseHandle,
    config: ServerConfig,
) {
    try {
        const sip = await createSipServer({
            db: handle.db,
            port: config.sipPort,
            host: config.host,
            // Cameras on the network need an address they can reach: the first LAN address when bound to all.
            publicAddress: hostOf(addresses(config.host, 1).at(-1)!),
            log: (line) => console.log(`视频: ${line}`),
        });
        config.sipPort = sip.port(); // the port taken (SIP_PORT=0 picks one): /platform shows this one
        return { sip, sipLine: `GB28181 SIP: udp://${sip.address()}:${sip.port()}` };
    } catch (err) {
        config.unboundListeners.push('sip');
        return {
            sip: undefined,
            sipLine:
                `GB28181 SIP 端口 ${config.sipPort} 不可用（${(err as Error).message}），GB28181 设备暂不能注册；请用 SIP_PORT 指定其他端口（0 自动选择）。\n` +
                `SIP port ${config.sipPort} unavailable; set SIP_PORT (0 picks a free one).`,
        };
    }
}

/** The start's summary: how long it took, the database, the console's URLs, each listener's line, the sign-in. */
function printStarted(
    config: ServerConfig,
    port: number,
    startedAt: number,
    generatedPassword: string | undefined,
    listenerLines: string[],
): void {
    const urls = addresses(config.host, port);
    const password = generatedPassword
        ? `${generatedPassword}（随机生成，仅显示这一次，请妥善保存）`
        : config.adminPassword
          ? 'ADMIN_PASSWORD 中设置的密码'
          : '首次启动时显示的密码（忘记时可设置 ADMIN_PASSWORD 后重启以重置）';
    console.log(
        [
            `${PRODUCT_NAME} 已启动（${Math.round(performance.now() - startedAt)} ms）`,
            `数据库: ${describeDatabase(config)}`,
            `控制台: ${urls[0]}`,
            ...urls.slice(1).map((u) => `        ${u}`),
            ...listenerLines,
            `登录: ${ADMIN_USERNAME} / ${password}`,
            '按 Ctrl+C 停止',
        ].join('\n'),
    );
}

async function main(): Promise<void> {
    const config = loadConfig();
    const startedAt = performance.now();
    // A first start on PGlite (no database in DATA_DIR yet): the embedded database's WebAssembly compiles and the
    // admin's password hashes (scrypt, on the thread pool) while the TLS material loads and the directory is filled.
    const firstStart = !config.databaseUrl && !existsSync(path.join(pgliteDirOf(config.dataDir), 'PG_VERSION'));
    if (!config.databaseUrl && pgliteInWorker()) compilePgliteWasm();
    const adminPassword = firstStart ? prepareAdminPassword(config.adminPassword) : undefined;
    // A missing, unreadable, expired or mismatched certificate stops the start here, naming the file.
    const tlsMaterial = await loadTlsOrExit(config);
    // The routers and services (their chunks of the compiled server: a few hundred ms of parsing on this thread) load
    // once the database is starting in its worker, not before: the data directory's copy and the worker's start come
    // first. The seed and the map index run after the server answers (below).
    const rest = once(() =>
        Promise.all([
            import('./app'),
            import('./seed'),
            import('./domain/deviceFiles'),
            import('./domain/deviceClusters'),
            import('./mqtt/broker'),
            import('./mqtt/access'),
            import('./simulation/simulator'),
            import('./domain/retention'),
            import('./amqp/service'),
            import('./rules/engine'),
            import('./rules/retention'),
            import('./video/relay'),
            import('./domain/videoDevices'),
            import('./video/sip'),
            import('./mqtt/presence'),
            import('./seed/live'),
            import('./video/testPattern'),
            import('./seed/ota'),
            import('./ota/service'),
            import('./remoteConfig/service'),
            import('./forward/service'),
            import('./forward/secrets'),
            import('./http/signedLinks'),
        ]),
    );
    const whileStarting = () => void rest();
    const handle = await openDatabaseOrExit(config, whileStarting);

    const [
        { createApp },
        { seedDatabase },
        { startLeftoverSweeper },
        { deviceClusterIndex },
        { createBroker },
        { createAccessHub },
        { createSimulator },
        { startRetentionSweeper },
        { createAmqpService },
        { createRuleEngine },
        { startRuleLogSweeper },
        { createVideoRelay },
        { pushingIds, streamSource },
        { createSipServer },
        { markLeftOnline },
        { startLiveDemo },
        { rtspSource, checkFfmpeg },
        { seedDemoOta },
        { createOtaService },
        { createRemoteConfigService },
        { createForwardService },
        { platformSecretBox },
        { linkKey },
    ] = await rest();
    // Connections ended with the previous run: its devices left ONLINE are OFFLINE as of this start (one process only;
    // in a cluster the others still hold theirs). Before the first start's demo seed, which writes statuses of its own.
    const leftOnline =
        config.redisUrl || handle.created
            ? Promise.resolve()
            : markLeftOnline(handle.db, new Date())
                  .then(
                      (n) =>
                          n &&
                          console.log(`设备状态: 上次运行时在线的 ${n} 台设备已标记为离线（连接随服务停止而断开）`),
                  )
                  .catch((err) => console.error('更新设备状态失败 / failed to mark devices offline:', err));
    const admin = await ensureAdmin(handle.db, config.adminPassword, adminPassword);
    const access = createAccessHub();
    const simulator = createSimulator({ db: handle.db, access });
    // Server-side subscription: property posts of subscribed products queue per consumer group (in the database) and go
    // to AMQP 1.0 consumers on AMQP_PORT.
    // In a cluster a member that cannot renew its heartbeat fences itself (server/cluster/lease.ts): the broker and the
    // AMQP service ask before each new connection. The node is made once the listeners exist (below).
    const cluster: { node?: NodeHandle } = {};
    const fenced = () => cluster.node?.fenced ?? false;
    const fence = () => cluster.node?.fenceToken;
    const amqp = createAmqpService({
        fenced,
        db: handle.db,
        backlogMax: config.amqpBacklogMax,
        backlogHours: config.amqpBacklogHours,
        databaseUrl: config.databaseUrl,
        maxFrameBytes: config.amqpMaxFrameBytes,
        handshakeTimeoutMs: config.handshakeTimeoutMs,
    });
    // Rules act on every message of the broker once it attaches to `access` (below).
    const rules = createRuleEngine({
        db: handle.db,
        access,
        timeZone: config.timeZone,
        databaseUrl: config.databaseUrl,
    });
    void rules.attach();
    const video = createVideoRelay({
        dir: config.videoDir,
        ffmpegPath: config.ffmpegPath,
        log: (line) => console.log(`视频: ${line}`),
    });
    // gb28181 cameras register over SIP/UDP; a taken port leaves everything else running and says so.
    const { sip, sipLine } = await startSip(createSipServer, handle, config);
    // OTA's scheduler runs every second once the broker attaches: held here so it stops before the database closes.
    const ota = createOtaService({ db: handle.db, access, config });
    // Remote configuration's message log writes: held here so they drain before the database closes.
    const remoteConfig = createRemoteConfigService({ db: handle.db, access, config });
    // Data forwarding: its routes read the message store and send on to the operators' systems (docs/forwarding.md).
    const forward = createForwardService({
        db: handle.db,
        databaseUrl: config.databaseUrl,
        timeZone: config.timeZone,
        box: platformSecretBox(linkKey(handle.db), config.forwardSecretKey),
        access,
        log: (line) => console.warn(line),
    });
    const app = createApp({
        db: handle.db,
        config,
        access,
        simulator,
        amqp,
        rules,
        video,
        sip,
        ota,
        remoteConfig,
        forward,
    });
    // Plain HTTP/1.1 (no TLS or HTTP/2 options), so the adaptor returns a node:http Server.
    // TLS_ONLY=1: plain HTTP only redirects to HTTPS.
    const server = createAdaptorServer({ fetch: config.tlsOnly ? redirectToHttps(config) : app.fetch }) as Server;
    keepIdleConnections(server);
    boundConnections(server, httpBounds(config), 'HTTP');
    const port = await listenOrExit(server, config, handle);

    // Device access: MQTT over TCP on MQTT_PORT and over WebSocket on this port's /mqtt. A taken MQTT port leaves the
    // console and the WebSocket access running, and says how to choose another.
    const broker = await createBroker({
        db: handle.db,
        redisUrl: config.redisUrl,
        maxPacketBytes: config.mqttMaxPacketBytes,
        connectTimeoutMs: config.handshakeTimeoutMs,
        fenced,
        fence,
        scriptLimits: config.scripts,
    });
    access.attach(broker);
    amqp.attach(broker);
    // Readiness, /metrics, cluster membership (REDIS_URL) and the SIGTERM drain (server/cluster/node.ts).
    const node = await (
        await import('./cluster/node')
    ).startNode({ handle, config, http: server, broker, amqp, simulator });
    cluster.node = node;
    // The subscriptions are known before the first device can post.
    await amqp.start().catch((err) => console.error('读取服务端订阅失败 / failed to load subscriptions:', err));
    void forward.start();
    if (!config.tlsOnly) broker.attachWebSocket(server);
    // Simulations that were running when the server stopped run again (their devices sign in through the broker); in
    // a cluster, those no living member runs (server/cluster/simulations.ts).
    void node
        .takeSimulations()
        .then((n) => n && console.log(`设备模拟: 已恢复 ${n} 个运行中的模拟`))
        .catch((err) => console.error('恢复设备模拟失败 / failed to resume simulations:', err));
    // Cameras that were pushing when the server stopped are pulled again.
    void pushingIds(handle.db)
        .then(async (ids) => {
            for (const id of ids) {
                const source = await streamSource(handle.db, id);
                // A gb28181 camera is asked again (INVITE) once it has registered: the relay retries until then.
                if (source?.protocol === 'gb28181') {
                    if (sip) video.start(id, sip.play(id));
                } else if (source?.host) video.start(id, rtspSource({ ...source, host: source.host }, config));
            }
            if (ids.length) console.log(`视频: 已恢复 ${ids.length} 路推流`);
        })
        .catch((err) => console.error('恢复视频推流失败 / failed to resume video pushes:', err));
    const { mqttLine, amqpLine } = await listenDeviceAccess(broker, amqp, config, port);

    let tlsLines: string[] = [];
    let tlsListeners: Awaited<ReturnType<typeof startTlsListeners>> | undefined;
    if (tlsMaterial) {
        const started = await startTlsListeners({
            config,
            material: tlsMaterial,
            fetch: app.fetch,
            broker,
            amqp,
            shownHost: hostOf(urls0(config.host, port)),
        });
        tlsLines = started.lines;
        tlsListeners = started;
    }

    printStarted(config, port, startedAt, admin.generatedPassword, [
        mqttLine,
        ...(amqpLine ? [amqpLine] : []),
        ...tlsLines,
        sipLine,
    ]);

    // The first start's reference and demo data go in while the server already answers, once it has answered its
    // first request (or after SEED_AFTER_MS without one): seeding takes the main thread for a few hundred ms, and on a
    // fresh data directory no session exists yet, so that first request cannot need the demo data (the admin is made
    // above). On PGlite, requests during the seed wait for its transaction, so they see the data. Then the
    // leftover-file sweep (at start and every few hours) and the device map's cluster index, so the dashboard's first
    // map is not the one to build it.
    let seeding = false;
    // The retention sweepers' stops: a stopping process awaits them (a legacy move's batch) before closing the database.
    const sweepers: Array<() => unknown> = [];
    const seedNow = () => {
        if (seeding) return;
        seeding = true;
        void leftOnline
            .then(() => {
                // The live demo's camera plays ffmpeg's test pattern: only when ffmpeg runs here.
                const camera = config.seedDemo && config.demoLive && checkFfmpeg(config.ffmpegPath).ok;
                return seedDatabase(handle.db, { demo: config.seedDemo, live: config.demoLive, camera, port });
            })
            .then(async (seed) => {
                // The live demo's devices connect, its rules load, its camera plays (server/seed/live.ts).
                // The demo firmware and its finished batch (server/seed/ota.ts), then the live devices connect.
                if (seed.live) await seedDemoOta(handle.db, config);
                if (seed.live) await startLiveDemo({ db: handle.db, simulator, rules, video, config });
                if (seed.seeded) {
                    console.log(
                        `数据库: ${describeDatabase(config)}，${seed.demo ? '已写入演示数据' : '已写入基础数据'}`,
                    );
                }
                startLeftoverSweeper(handle.db, config.filesDir);
                // Messages and property history older than LOG_RETENTION_DAYS: now and every hour, in batches. One
                // process of a cluster runs it (the oldest member; another takes over when it dies).
                node.oncePerCluster(() => sweepers.push(startRetentionSweeper(handle.db, config.logRetentionDays)));
                // The rule journal and notification records, likewise.
                node.oncePerCluster(() => sweepers.push(startRuleLogSweeper(handle.db, config.logRetentionDays)));
                return deviceClusterIndex(handle.db).snapshot();
            })
            .catch((err) => console.error('启动后的初始化失败 / post-start setup failed:', err));
    };
    server.once('request', (_req, res) => res.once('finish', () => setImmediate(seedNow)));
    setTimeout(seedNow, SEED_AFTER_MS);

    const shutdown = createShutdown({
        timeoutMs: config.stopTimeoutMs,
        log: (line) => console.error(line),
        exit: (code) => process.exit(code),
    });
    stopOnSignals(node, shutdown, () => {
        // The HTTPS listener stops taking requests with the plain one; its open sockets end with the process.
        tlsListeners?.https.close();
        tlsListeners?.https.closeIdleConnections();
        tlsListeners?.watcher?.close();
        closeServer(server, shutdown, () =>
            shutdown.run([
                { zh: '停止设备模拟', en: 'stopping simulations', run: () => simulator.close() },
                { zh: '关闭 AMQP', en: 'closing AMQP', run: () => amqp.close() },
                { zh: '停止规则引擎', en: 'stopping rules', run: () => rules.close() },
                { zh: '停止固件升级', en: 'stopping OTA', run: () => ota.close() },
                { zh: '停止数据流转', en: 'stopping forwarding', run: () => forward.close() },
                { zh: '停止远程配置', en: 'stopping remote configuration', run: () => remoteConfig.close() },
                { zh: '停止视频推流', en: 'stopping video', run: () => video.close() },
                { zh: '关闭 GB28181 SIP', en: 'closing SIP', run: () => sip?.close() },
                { zh: '关闭 MQTT', en: 'closing MQTT', run: () => broker.close() },
                { zh: '退出集群', en: 'leaving the cluster', run: () => node.leave() },
                { zh: '停止数据清理', en: 'stopping sweepers', run: () => Promise.all(sweepers.map((stop) => stop())) },
                { zh: '关闭数据库', en: 'closing the database', run: () => handle.close() },
            ]),
        );
    });
}

main().catch((err) => {
    console.error('启动失败 / failed to start:', err);
    process.exit(1);
});
