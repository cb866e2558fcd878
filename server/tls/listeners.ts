import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import { createAdaptorServer } from '@hono/node-server';
import { boundConnections, httpBounds } from '../http/connections';
import { keepIdleConnections } from '../httpIdle';
import type { ServerConfig } from '../config';
import { createRefusalLog } from '../mqtt/packetLimit';
import { loadTls, TlsConfigError, type TlsMaterial } from './certificates';
import { watchTls } from './reload';

/**
 * The TLS side of start-up (server/index.ts calls these): the certificate, the HTTPS, MQTTS and AMQPS listeners
 * beside the plain ones, the renewal watch, and the lines printed at start.
 */

/** The certificate, or the refusal to start (the file and the problem, in Chinese and English). */
export async function loadTlsOrExit(config: ServerConfig): Promise<TlsMaterial | undefined> {
    if (!config.tls) return undefined;
    try {
        const material = await loadTls({
            dataDir: config.dataDir,
            certFile: config.tlsCertFile,
            keyFile: config.tlsKeyFile,
        });
        config.tlsCaFile = material.caFile;
        config.tlsFingerprint = material.fingerprint;
        return material;
    } catch (err) {
        if (err instanceof TlsConfigError) {
            console.error(err.message);
            process.exit(1);
        }
        throw err;
    }
}

/** The line that tells which certificate devices trust; a file that also holds the key is never named to hand out. */
function startLine(material: TlsMaterial): string {
    const fingerprint = `SHA-256 ${material.fingerprint}`;
    if (material.certFileHoldsKey) {
        return `TLS 证书: ${material.certFile}（${fingerprint}）含私钥，请勿分发此文件；设备信任的 CA 证书请在控制台下载（/api/platform/ca.pem，只含证书）`;
    }
    return material.caFile
        ? `TLS CA: ${material.caFile}（${fingerprint}）设备与客户端信任此证书`
        : `TLS 证书: ${material.certFile}（${fingerprint}）`;
}

/** Plain HTTP under TLS_ONLY=1: every request is sent to the same path on HTTPS. */
export function redirectToHttps(config: ServerConfig) {
    return (request: Request) => {
        const url = new URL(request.url);
        url.protocol = 'https:';
        url.port = String(config.httpsPort);
        return new Response(null, { status: 308, headers: { location: url.toString() } });
    };
}

interface Listeners {
    config: ServerConfig;
    material: TlsMaterial;
    fetch: (request: Request) => Response | Promise<Response>;
    broker: {
        listenTls(port: number, host: string, context: SecureContextOptions): Promise<number>;
        setSecureContext(context: SecureContextOptions): void;
        attachWebSocket(server: HttpsServer): void;
    };
    amqp: {
        listenTls(port: number, host: string, context: SecureContextOptions): Promise<number>;
        setSecureContext(context: SecureContextOptions): void;
    };
    /** The host name the printed URLs use. */
    shownHost: string;
}

function inUse(err: unknown): boolean {
    return (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/**
 * HTTPS (the console, the API and /mqtt), MQTTS and AMQPS. A taken port leaves everything else running and is
 * reported like the plain ones (GET /api/platform/info then answers null for it). Resolves with the start-up lines.
 */
export async function startTlsListeners({ config, material, fetch, broker, amqp, shownHost }: Listeners) {
    const context = { key: material.key, cert: material.cert };
    const lines: string[] = [];
    const https = createAdaptorServer({
        fetch,
        createServer: createHttpsServer,
        serverOptions: { ...context, handshakeTimeout: config.handshakeTimeoutMs },
    }) as HttpsServer;
    keepIdleConnections(https);
    boundConnections(https, httpBounds(config), 'HTTPS');
    // Plaintext on the HTTPS port, a stalled or failed handshake: closed, one line per address and minute.
    const refusal = createRefusalLog((line) => console.warn(line));
    https.on('tlsClientError', (err, socket) => {
        const address = (socket.remoteAddress ?? '未知地址').replace(/^::ffff:/, '');
        refusal(`HTTPS ${address}`, `HTTPS 关闭来自 ${address} 的连接：TLS 握手失败（${err.message}）`);
        socket.destroy();
    });
    const unavailable = (name: 'https' | 'mqtts' | 'amqps', env: string, port: number, err: unknown) => {
        if (!inUse(err)) throw err;
        config.unboundListeners.push(name);
        lines.push(
            `${name.toUpperCase()} 端口 ${port} 已被占用，请用 ${env} 指定其他端口（0 自动选择空闲端口）后重启。\n` +
                `${name.toUpperCase()} port ${port} is in use; set ${env} to another port (0 picks a free one).`,
        );
    };
    try {
        config.httpsPort = await new Promise<number>((resolve, reject) => {
            https.once('error', reject);
            https.listen(config.httpsPort, config.host, () => {
                https.off('error', reject);
                resolve((https.address() as { port: number }).port);
            });
        });
        broker.attachWebSocket(https);
        lines.push(
            `HTTPS: https://${shownHost}:${config.httpsPort}/（控制台），WSS: wss://${shownHost}:${config.httpsPort}/mqtt`,
        );
    } catch (err) {
        unavailable('https', 'HTTPS_PORT', config.httpsPort, err);
    }
    try {
        config.mqttsPort = await broker.listenTls(config.mqttsPort, config.host, context);
        lines.push(`MQTTS: mqtts://${shownHost}:${config.mqttsPort}（设备通过 TLS 接入，securemode=2）`);
    } catch (err) {
        unavailable('mqtts', 'MQTTS_PORT', config.mqttsPort, err);
    }
    try {
        config.amqpsPort = await amqp.listenTls(config.amqpsPort, config.host, context);
        lines.push(`AMQPS: amqps://${shownHost}:${config.amqpsPort}（服务端订阅，AMQP 1.0 over TLS）`);
    } catch (err) {
        unavailable('amqps', 'AMQPS_PORT', config.amqpsPort, err);
    }
    lines.push(startLine(material));
    const watcher = watchTls(material, config.dataDir, (next) => {
        const fresh = { key: next.key, cert: next.cert };
        https.setSecureContext(fresh);
        broker.setSecureContext(fresh);
        amqp.setSecureContext(fresh);
        config.tlsCaFile = next.caFile;
        config.tlsFingerprint = next.fingerprint;
    });
    return { https, lines, watcher };
}
