import type { AuthenticateError, Client } from 'aedes';
import type { BrokerState } from './brokerState';
import type { Directory } from './directory';
import { parseClientId, parseUsername, passwordValid, type AlibabaClientId } from './signIn';

/** MQTT CONNACK return codes (3.1.1). */
export const CODE = {
    SERVER_UNAVAILABLE: 3,
    IDENTIFIER_REJECTED: 2,
    BAD_USERNAME_OR_PASSWORD: 4,
    NOT_AUTHORIZED: 5,
} as const;

export function refuse(code: number, message: string): AuthenticateError {
    return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

/**
 * A sign-in this process cannot decide now (fenced, or the database did not answer): the connection is closed with no
 * CONNACK. A client reads that as a network failure and reconnects (through the load balancer, to a member that can
 * take it); a CONNACK refusal, even 3 "server unavailable", stops mqtt.js (and the SDKs built on it) for good.
 */
export function dropUndecided(client: Client, done: AuthenticateDone): void {
    client.close();
    // aedes sees the client closed and stops the CONNECT there, writing nothing.
    done(refuse(CODE.SERVER_UNAVAILABLE, '服务暂不可用'), false);
}

/** aedes' preConnect: a fenced member takes no CONNECT (closed before sign-in, without a CONNACK). */
export function preConnect(fenced: () => boolean, done: (err: Error | null, ok: boolean) => void): void {
    done(null, !fenced());
}

/** aedes' authenticate callback. */
export type AuthenticateDone = (err: AuthenticateError | null, ok: boolean | null) => void;

export interface AuthenticationDeps {
    state: BrokerState;
    directory: Pick<Directory, 'byName' | 'signedInBefore'>;
    /** Connections that arrived over TLS (MQTTS, or WebSocket over HTTPS). */
    secure: WeakSet<object>;
    log: (message: string) => void;
    /** In a cluster: this member is fenced and takes no device now. */
    fenced?: () => boolean;
    /** Alibaba's dynamic registration (authType=register or regnwl in the clientId; mqttRegister.ts). */
    register?: (
        client: Client,
        who: { productKey: string; deviceName: string },
        id: AlibabaClientId,
        password: Buffer | undefined,
        done: AuthenticateDone,
    ) => void;
}

type Found = Awaited<ReturnType<Directory['byName']>>;

/** A CONNECT's credentials, its username read as `{deviceName}&{productKey}`. */
export interface SignInAttempt {
    username: string | undefined;
    password: Buffer | undefined;
    deviceName: string;
    productKey: string;
}

/**
 * aedes' authenticate: the username `{deviceName}&{productKey}` names the device, the password proves its secret under
 * the client id's scheme (signIn.ts); the device must be enabled. A device signed in before is found without the
 * database (directory.signedInBefore).
 */
export function authenticate(
    deps: AuthenticationDeps,
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    done: AuthenticateDone,
) {
    if (deps.fenced?.()) return dropUndecided(client, done);
    const who = parseUsername(username);
    if (!who) return done(refuse(CODE.BAD_USERNAME_OR_PASSWORD, '用户名应为 {deviceName}&{productKey}'), false);
    // Alibaba's securemode=2 means "over TLS": a device that asked for TLS must not sign in over plain TCP, where its
    // payloads would cross the network in clear while it believes them encrypted. securemode=3 is accepted on both.
    const alibaba = parseClientId(client.id);
    if (typeof alibaba === 'object' && alibaba.securemode === '2' && !deps.secure.has(client.conn)) {
        deps.log(
            `MQTT 拒绝连接（securemode=2 要求 TLS，但设备通过明文端口连接；请连接 MQTTS 端口或使用 mqtts:// / wss://）: ${username}`,
        );
        return done(refuse(CODE.NOT_AUTHORIZED, 'securemode=2 须通过 TLS 连接'), false);
    }
    if (typeof alibaba === 'object' && (alibaba.authType === 'register' || alibaba.authType === 'regnwl')) {
        if (deps.register) return deps.register(client, who, alibaba, password, done);
        return done(refuse(CODE.NOT_AUTHORIZED, '不支持动态注册'), false);
    }
    const known = deps.directory.signedInBefore(who.productKey, who.deviceName);
    const attempt = { username, password, ...who };
    if (known) return signIn(deps, client, attempt, known, done);
    deps.directory
        .byName(who.productKey, who.deviceName)
        .then((found) => signIn(deps, client, attempt, found, done))
        .catch((err) => {
            deps.log(`MQTT 认证失败（连接已关闭，设备会重连）: ${String(err)}`);
            dropUndecided(client, done);
        });
}

/** The sign-in's verdict on the device found under the username; an accepted one is noted on the connection. */
export function signIn(
    deps: AuthenticationDeps,
    client: Client,
    { username, password, deviceName, productKey }: SignInAttempt,
    found: Found,
    done: AuthenticateDone,
) {
    if (!('deviceId' in found)) {
        const why = found.unknownProduct ? '产品不存在' : '设备不存在';
        deps.log(`MQTT 拒绝连接（${why}）: ${username}`);
        return done(refuse(CODE.IDENTIFIER_REJECTED, why), false);
    }
    if (!passwordValid(client.id, deviceName, productKey, found.secret, password?.toString() ?? '')) {
        deps.log(`MQTT 拒绝连接（签名错误）: ${username}`);
        return done(refuse(CODE.BAD_USERNAME_OR_PASSWORD, '签名错误'), false);
    }
    if (!found.enabled) {
        deps.log(`MQTT 拒绝连接（设备已禁用）: ${username}`);
        return done(refuse(CODE.NOT_AUTHORIZED, '设备已禁用'), false);
    }
    deps.state.devices.set(client, found);
    deps.state.signedInAt.set(client, performance.now());
    done(null, true);
}
