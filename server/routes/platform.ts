import { readFileSync } from 'node:fs';
import { fromRoot } from '../paths';
import { Hono } from 'hono';
import { memberRows, members } from '../cluster/figures';
import { pgliteDirOf } from '../db/client';
import type { AppEnv, Services } from '../deps';
import type { ServerConfig } from '../config';
import { fail, ok } from '../http/envelope';
import { formatTime } from '../http/time';
import { certificateBlocks, certificatesPem } from '../tls/pem';
import { checkFfmpeg } from '../video/testPattern';

const VERSION = (() => {
    try {
        const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
            version?: string;
        };
        return pkg.version ?? '';
    } catch {
        return '';
    }
})();

/** The PostgreSQL URL without its password. */
function safeUrl(url: string): string {
    try {
        const u = new URL(url);
        if (u.password) u.password = '***';
        return u.toString();
    } catch {
        return 'PostgreSQL';
    }
}

const DEVICE_SIGN_IN = [
    'clientId {id}|securemode=3,signmethod=hmacsha256,timestamp={ms}|（也支持 hmacsha1、hmacmd5），username {DeviceName}&{ProductKey}，password 为以 DeviceSecret 为密钥对 clientId{id}deviceName{DeviceName}productKey{ProductKey}timestamp{ms} 的 HMAC（十六进制）：与阿里云物联网平台相同',
    '简单方式：username {DeviceName}&{ProductKey}，password 为 DeviceSecret，clientId 任意（建议 {ProductKey}.{DeviceName}）',
].join('\n');

const AMQP_SIGN_IN =
    'SASL PLAIN：username {clientId}|authMode=aksign,signMethod=hmacsha1,timestamp={ms},authId={AccessKey},iotInstanceId=,consumerGroupId={消费组ID}|，password 为以 AccessSecret 为密钥对 authId={AccessKey}&timestamp={ms} 的 HMAC-SHA1（Base64）：与阿里云 AMQP 服务端订阅相同';

/**
 * GET /api/platform/info: what an integrator needs to connect (the /platform screen): device and application
 * endpoints on the host the caller used, the sign-in schemes, the store in use, retention, version.
 */
export function platformRoutes({ config, access }: Services) {
    const app = new Hono<AppEnv>();
    // Whether ffmpeg runs here (video push and the demo camera need it), asked once.
    let videoTool: string | null | undefined;
    const videoToolMissing = () => (videoTool ??= checkFfmpeg(config.ffmpegPath).why ?? null);
    app.get('/info', async (c) => {
        const url = new URL(c.req.url);
        const host = url.hostname;
        const httpPort = url.port || (url.protocol === 'https:' ? '443' : '80');
        const wsScheme = url.protocol === 'https:' ? 'wss' : 'ws';
        const bound = (listener: ServerConfig['unboundListeners'][number]) =>
            !config.unboundListeners.includes(listener);
        // TLS endpoints: only when TLS is on and the port was taken (TLS=0 or a port in use: null).
        const tls = (listener: 'https' | 'mqtts' | 'amqps') => config.tls && bound(listener);
        return ok(c, {
            version: VERSION,
            host,
            mqttPort: bound('mqtt') ? config.mqttPort : null,
            mqttUrl: bound('mqtt') ? `mqtt://${host}:${config.mqttPort}` : null,
            mqttWsUrl: config.tlsOnly && wsScheme === 'ws' ? null : `${wsScheme}://${host}:${httpPort}/mqtt`,
            amqpPort: bound('amqp') ? config.amqpPort : null,
            amqpUrl: bound('amqp') ? `amqp://${host}:${config.amqpPort}` : null,
            deviceSignIn: DEVICE_SIGN_IN,
            amqpSignIn: AMQP_SIGN_IN,
            store: config.databaseUrl ? 'postgres' : 'pglite',
            storeLocation: config.databaseUrl ? safeUrl(config.databaseUrl) : pgliteDirOf(config.dataDir),
            filesDir: config.filesDir,
            logRetentionDays: config.logRetentionDays,
            cluster: Boolean(config.redisUrl),
            sipUrl: bound('sip') ? `udp://${host}:${config.sipPort}` : null,
            timeZone: config.timeZone,
            // The living members (this process alone without REDIS_URL), each with its share (server/cluster/figures.ts).
            nodes: memberRows(
                await members(() => {
                    const b = access?.backend;
                    return { connected: b?.connected ?? 0, ...(b && b.traffic.rates()) };
                }),
                (t) => formatTime(t, config.timeZone),
            ),
            mqttsUrl: tls('mqtts') ? `mqtts://${host}:${config.mqttsPort}` : null,
            mqttWssUrl: tls('https') ? `wss://${host}:${config.httpsPort}/mqtt` : null,
            amqpsUrl: tls('amqps') ? `amqps://${host}:${config.amqpsPort}` : null,
            httpsUrl: tls('https') ? `https://${host}:${config.httpsPort}/` : null,
            tlsFingerprint: config.tls ? (config.tlsFingerprint ?? null) : null,
            caCertificate: config.tls && config.tlsCaFile ? '/api/platform/ca.pem' : null,
            tlsOnly: config.tlsOnly,
            videoToolMissing: videoToolMissing(),
        });
    });
    // The CA devices pin (public, but behind the sign-in like every API path; start-up also prints its file).
    app.get('/ca.pem', (c) => {
        if (!config.tls || !config.tlsCaFile) {
            return fail(c, 404, 'CA 证书不存在：TLS 未开启，或所用证书（TLS_CERT_FILE）未附带 CA 证书链');
        }
        let text: string;
        try {
            text = readFileSync(config.tlsCaFile, 'utf8');
        } catch {
            return fail(c, 404, `CA 证书文件无法读取：${config.tlsCaFile}`);
        }
        // Certificate blocks only: the file may be a chain kept together with its private key.
        const blocks = certificateBlocks(text);
        if (!blocks.length) return fail(c, 404, `CA 证书文件不含证书：${config.tlsCaFile}，请检查 TLS_CERT_FILE`);
        const pem = certificatesPem(blocks);
        return c.body(pem, 200, {
            'Content-Type': 'application/x-pem-file',
            'Content-Disposition': 'attachment; filename="iot-platform-ca.pem"',
            'X-Content-Type-Options': 'nosniff',
        });
    });
    return app;
}
