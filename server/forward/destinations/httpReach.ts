import { lookup } from 'node:dns/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { networkReason, messageOf } from './network';
import { DestinationError } from './types';

/**
 * 测试连接 of an HTTP(S) destination without sending anything the receiver could take for data (a HEAD or OPTIONS
 * is not answered the same by every server): the host name resolves, a TCP connection opens, and for https the TLS
 * handshake verifies the certificate as fetch would. Rejects with what failed, in Chinese.
 */
export async function reachable(url: URL, timeoutMs: number): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const address = await resolve(host);
    try {
        await handshake(url.protocol === 'https:', host, address, port, timeoutMs);
    } catch (error) {
        const reason = networkReason(error) ?? messageOf(error);
        throw new DestinationError(`无法连接推送地址 ${url.host}：${reason}`, false, { cause: error });
    }
}

async function resolve(host: string): Promise<string> {
    if (isIP(host)) return host;
    try {
        return (await lookup(host)).address;
    } catch (error) {
        throw new DestinationError(`无法解析主机名 ${host}，请检查推送地址`, false, { cause: error });
    }
}

/** Opens a connection (TLS verified for https) to the address and closes it. */
function handshake(secure: boolean, host: string, address: string, port: number, timeoutMs: number): Promise<void> {
    return new Promise<void>((done, fail) => {
        const servername = isIP(host) ? undefined : host;
        const socket: Socket = secure
            ? tlsConnect({ host: address, port, servername, timeout: timeoutMs }, () => finish())
            : netConnect({ host: address, port, timeout: timeoutMs }, () => finish());
        const finish = (error?: Error) => {
            socket.destroy();
            if (error) fail(error);
            else done();
        };
        socket.once('error', finish);
        socket.once('timeout', () => finish(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    });
}
