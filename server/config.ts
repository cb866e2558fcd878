import path from 'node:path';
import { loadGeoConfig, type GeoConfig } from './geo/config';
import { loadOtaConfig, type OtaConfig } from './ota/config';
import type { ScriptLimits } from './scripts/sandbox';

/** Everything the server reads from its environment. Code below index.ts receives this object, never process.env. */
export interface ServerConfig {
    port: number;
    host: string;
    /** Holds the embedded database (pgdata) when no DATABASE_URL is given. */
    dataDir: string;
    /** Device files (FILES_DIR, default dataDir/files): one directory per database, never shared between servers. */
    filesDir: string;
    /** PostgreSQL connection string; undefined means the embedded PGlite in dataDir/pgdata. */
    databaseUrl: string | undefined;
    /** Password for the first admin; undefined means a random one printed once at the first start. */
    adminPassword: string | undefined;
    /** Demo projects, products and thing models on the first start of an empty database. */
    seedDemo: boolean;
    /** With the demo: its devices run by simulations, its rules firing, an edge instance, a camera (DEMO_LIVE, default on). */
    demoLive: boolean;
    /** Time zone of every time string the API answers. */
    timeZone: string;
    /** The built console (vite build output) served on the same port. */
    publicDir: string;
    /** Map style and geocoder (offline by default; docs/configuration.md). */
    map: GeoConfig;
    /** MQTT over TCP for devices (MQTT_PORT, default 1883; 0 picks a free port). MQTT over WebSocket is on PORT at /mqtt. */
    mqttPort: number;
    /** Redis shared by several server processes on one database (REDIS_URL; docs/deployment.md); unset: one process. */
    redisUrl: string | undefined;
    /** AMQP 1.0 for server-side subscription consumers (AMQP_PORT, default 5672; 0 picks a free port). */
    amqpPort: number;
    /** Most messages kept per consumer group while none of its consumers is connected (AMQP_BACKLOG_MAX). */
    amqpBacklogMax: number;
    /** Oldest message kept per consumer group, hours (AMQP_BACKLOG_HOURS). */
    amqpBacklogHours: number;
    /** FORWARD_SECRET_KEY: the key destination secrets are sealed with (server/forward/secrets.ts); unset: the platform's. */
    forwardSecretKey?: string;
    /** Days the message log (device_messages) and property history are kept (LOG_RETENTION_DAYS, default 30). */
    logRetentionDays: number;
    /** Live video: where the HLS segments of pushed cameras are written (VIDEO_DIR, default dataDir/video). */
    videoDir: string;
    /** The ffmpeg that pulls cameras' RTSP streams (FFMPEG_PATH, default `ffmpeg` on PATH). */
    ffmpegPath: string;
    /**
     * Device, consumer and camera listeners whose port could not be taken at start (another program holds it): the
     * console still starts, and GET /api/platform/info answers null for them instead of a port that is not this
     * platform's (on a machine with Mosquitto on 1883, mqtt://host:1883 would send devices to Mosquitto).
     */
    unboundListeners: Array<'mqtt' | 'amqp' | 'sip' | 'https' | 'mqtts' | 'amqps'>;
    /** GB/T 28181 SIP over UDP for gb28181 cameras (SIP_PORT, default 5060; 0 picks a free port). */
    sipPort: number;
    /** In a cluster: a member silent this long (ms) is dead and cleaned up after (NODE_TIMEOUT seconds, default 30). */
    nodeTimeoutMs: number;
    /** The bearer token /metrics asks for (METRICS_TOKEN); unset: /metrics answers 404 (docs/deployment.md). */
    metricsToken: string | undefined;
    /** SIGTERM: the longest the readiness answers 503 before the process stops taking connections (DRAIN_DELAY ms). */
    drainDelayMs: number;
    /** SIGTERM: the longest the whole stop takes (drain and closing) before the process exits 1 (STOP_TIMEOUT s). */
    stopTimeoutMs: number;
    /** TLS listeners beside the plain ones (TLS, default on; TLS=0 turns them off). */
    tls: boolean;
    /** Only the TLS listeners (TLS_ONLY=1): no plain MQTT and AMQP, plain HTTP only redirects to HTTPS. */
    tlsOnly: boolean;
    /** The certificate (PEM, a chain allowed) and key served; unset: a local CA made in DATA_DIR/tls/. */
    tlsCertFile: string | undefined;
    tlsKeyFile: string | undefined;
    /** The console, API and MQTT over WebSocket (/mqtt) over HTTPS (HTTPS_PORT, default 8443). */
    httpsPort: number;
    /** MQTT over TLS (MQTTS_PORT, default 8883). */
    mqttsPort: number;
    /** AMQP 1.0 over TLS (AMQPS_PORT, default 5671). */
    amqpsPort: number;
    /** The largest MQTT packet read (MQTT_MAX_PACKET_BYTES, default 256 KB; a CONNECT is held to 64 KB). */
    mqttMaxPacketBytes: number;
    /** The largest AMQP frame read (AMQP_MAX_FRAME_BYTES, default 256 KB). */
    amqpMaxFrameBytes: number;
    /** A device or consumer connection that has not signed in within this is closed (HANDSHAKE_TIMEOUT_MS, 10 s). */
    handshakeTimeoutMs: number;
    /** Dynamic registrations (一型一密) per product and minute in one process (DYNAMIC_REGISTER_PER_MINUTE, 30). */
    dynamicRegisterPerMinute: number;
    /** Connections at once on each HTTP and HTTPS listener (HTTP_MAX_CONNECTIONS, 20000). */
    httpMaxConnections: number;
    /** Connections at once from one address on each of them (HTTP_MAX_CONNECTIONS_PER_ADDRESS; 0, the default: off). */
    httpMaxConnectionsPerAddress: number;
    /** Set at start: the CA devices trust (its file and SHA-256 fingerprint), for /platform. */
    tlsCaFile?: string;
    tlsFingerprint?: string;
    /** OTA firmware upgrades (server/ota/config.ts). */
    ota: OtaConfig;
    /** Data-parsing scripts' limits per run (SCRIPT_TIMEOUT_MS, default 100; SCRIPT_MEMORY_MB, default 16). */
    scripts: ScriptLimits;
}

function nonEmpty(value: string | undefined): string | undefined {
    return value === undefined || value.trim() === '' ? undefined : value;
}

function parsePort(raw: string | undefined, fallback = 8080, name = 'PORT'): number {
    if (raw === undefined || raw.trim() === '') return fallback;
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new Error(`${name} 必须是 0~65535 的整数 / ${name} must be an integer 0-65535 (got "${raw}")`);
    }
    return port;
}

function parseDays(raw: string | undefined, fallback = 30, name = 'LOG_RETENTION_DAYS'): number {
    if (raw === undefined || raw.trim() === '') return fallback;
    const days = Number(raw);
    if (!Number.isInteger(days) || days < 1 || days > 36500) {
        throw new Error(`${name} 必须是 1~36500 的整数（天） / ${name} must be an integer 1-36500 days (got "${raw}")`);
    }
    return days;
}

function parseBound(raw: string | undefined, fallback: number, max: number, name: string): number {
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) {
        throw new Error(`${name} 必须是 1~${max} 的整数 / ${name} must be an integer 1-${max} (got "${raw}")`);
    }
    return n;
}

/**
 * STOP_TIMEOUT seconds; unset: 30 s, or DRAIN_DELAY + 20 s when that is longer (the drain's devices need their time to
 * be stored and closed). A limit within DRAIN_DELAY would cut every drain short: refused.
 */
function parseStopTimeout(env: NodeJS.ProcessEnv): number {
    const drainMs = parseBound(env.DRAIN_DELAY, 3000, 600_000, 'DRAIN_DELAY');
    const ms = parseBound(env.STOP_TIMEOUT, Math.max(30, Math.ceil(drainMs / 1000) + 20), 3600, 'STOP_TIMEOUT') * 1000;
    if (ms <= drainMs)
        throw new Error(
            `STOP_TIMEOUT（${ms / 1000} 秒）必须长于 DRAIN_DELAY（${drainMs} 毫秒） / STOP_TIMEOUT must be longer than DRAIN_DELAY`,
        );
    return ms;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ServerConfig {
    const dataDir = path.resolve(cwd, nonEmpty(env.DATA_DIR) ?? './data');
    return {
        port: parsePort(env.PORT),
        host: nonEmpty(env.HOST) ?? '0.0.0.0',
        dataDir,
        filesDir: path.resolve(cwd, nonEmpty(env.FILES_DIR) ?? path.join(dataDir, 'files')),
        databaseUrl: nonEmpty(env.DATABASE_URL),
        adminPassword: nonEmpty(env.ADMIN_PASSWORD),
        seedDemo: (env.SEED_DEMO ?? '1').trim() !== '0',
        demoLive: (env.DEMO_LIVE ?? '1').trim() !== '0',
        timeZone: nonEmpty(env.TZ) ?? 'Asia/Shanghai',
        publicDir: path.resolve(cwd, nonEmpty(env.PUBLIC_DIR) ?? './dist'),
        map: loadGeoConfig(env),
        mqttPort: parsePort(env.MQTT_PORT, 1883, 'MQTT_PORT'),
        redisUrl: nonEmpty(env.REDIS_URL),
        logRetentionDays: parseDays(env.LOG_RETENTION_DAYS),
        amqpPort: parsePort(env.AMQP_PORT, 5672, 'AMQP_PORT'),
        amqpBacklogMax: parseBound(env.AMQP_BACKLOG_MAX, 100_000, 10_000_000, 'AMQP_BACKLOG_MAX'),
        amqpBacklogHours: parseBound(env.AMQP_BACKLOG_HOURS, 24, 720, 'AMQP_BACKLOG_HOURS'),
        forwardSecretKey: env.FORWARD_SECRET_KEY || undefined,
        videoDir: path.resolve(cwd, nonEmpty(env.VIDEO_DIR) ?? path.join(dataDir, 'video')),
        ffmpegPath: nonEmpty(env.FFMPEG_PATH) ?? 'ffmpeg',
        sipPort: parsePort(env.SIP_PORT, 5060, 'SIP_PORT'),
        unboundListeners: [],
        nodeTimeoutMs: parseBound(env.NODE_TIMEOUT, 30, 3600, 'NODE_TIMEOUT') * 1000,
        metricsToken: nonEmpty(env.METRICS_TOKEN),
        drainDelayMs: parseBound(env.DRAIN_DELAY, 3000, 600_000, 'DRAIN_DELAY'),
        stopTimeoutMs: parseStopTimeout(env),
        tls: (env.TLS ?? '1').trim() !== '0' || (env.TLS_ONLY ?? '').trim() === '1',
        tlsOnly: (env.TLS_ONLY ?? '').trim() === '1',
        tlsCertFile: nonEmpty(env.TLS_CERT_FILE) && path.resolve(cwd, env.TLS_CERT_FILE!.trim()),
        tlsKeyFile: nonEmpty(env.TLS_KEY_FILE) && path.resolve(cwd, env.TLS_KEY_FILE!.trim()),
        httpsPort: parsePort(env.HTTPS_PORT, 8443, 'HTTPS_PORT'),
        mqttsPort: parsePort(env.MQTTS_PORT, 8883, 'MQTTS_PORT'),
        amqpsPort: parsePort(env.AMQPS_PORT, 5671, 'AMQPS_PORT'),
        mqttMaxPacketBytes: parseBound(env.MQTT_MAX_PACKET_BYTES, 256 * 1024, 268_435_455, 'MQTT_MAX_PACKET_BYTES'),
        amqpMaxFrameBytes: parseBound(env.AMQP_MAX_FRAME_BYTES, 256 * 1024, 1 << 30, 'AMQP_MAX_FRAME_BYTES'),
        handshakeTimeoutMs: parseBound(env.HANDSHAKE_TIMEOUT_MS, 10_000, 600_000, 'HANDSHAKE_TIMEOUT_MS'),
        dynamicRegisterPerMinute: parseBound(
            env.DYNAMIC_REGISTER_PER_MINUTE,
            30,
            100_000,
            'DYNAMIC_REGISTER_PER_MINUTE',
        ),
        httpMaxConnections: parseBound(env.HTTP_MAX_CONNECTIONS, 20_000, 1_000_000, 'HTTP_MAX_CONNECTIONS'),
        httpMaxConnectionsPerAddress:
            env.HTTP_MAX_CONNECTIONS_PER_ADDRESS?.trim() === '0'
                ? 0
                : parseBound(env.HTTP_MAX_CONNECTIONS_PER_ADDRESS, 0, 1_000_000, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS'),
        ota: loadOtaConfig(env),
        scripts: {
            timeoutMs: parseBound(env.SCRIPT_TIMEOUT_MS, 100, 5000, 'SCRIPT_TIMEOUT_MS'),
            memoryMb: parseBound(env.SCRIPT_MEMORY_MB, 16, 256, 'SCRIPT_MEMORY_MB'),
        },
    };
}
