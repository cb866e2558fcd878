import type { Client, PublishPacket } from 'aedes';
import type { Db } from '../db/client';
import { ALINK_CODE, Refusal, registerDirect, type DirectMode } from '../domain/dynamicRegister';
import { CODE, dropUndecided, refuse, type AuthenticateDone } from './authentication';
import type { AlibabaClientId } from './signIn';

/**
 * Alibaba's dynamic registration over MQTT (一型一密, docs/device-access.md): a CONNECT whose clientId carries
 * `authType=register` (a device the platform has, or one created while 免预注册 is on: its DeviceSecret comes back on
 * `/ext/register`) or `authType=regnwl`
 * (免预注册: the device is created if the platform lacks it, and `clientId` and `deviceToken` come back on
 * `/ext/regnwl`; the device then signs in with `{clientId}|securemode=-2,authType=connwl|` and the token as password).
 * Username `{deviceName}&{productKey}`, password hex HMAC(ProductSecret, `deviceName{dn}productKey{pk}random{random}`)
 * with the clientId's signmethod. Only over TLS (securemode 2 or -2), as Alibaba requires: the answer is a secret.
 * The connection is accepted, sent the answer without a subscription, and closed: it can do nothing else.
 */

export interface RegistrationAnswer {
    topic: string;
    body: string;
}

/** Registration connections and the answer each is to receive once its CONNACK is out. */
export type Registrations = WeakMap<Client, RegistrationAnswer>;

export interface MqttRegisterDeps {
    db: Db;
    registrations: Registrations;
    secure: WeakSet<object>;
    log: (message: string) => void;
}

export const isRegistration = (id: AlibabaClientId) => id.authType === 'register' || id.authType === 'regnwl';

/** The CONNACK refusal of an Alibaba code: a bad signature as a bad password, an unknown device as a rejected id. */
function connackOf(code: number): number {
    if (code === ALINK_CODE.auth) return CODE.BAD_USERNAME_OR_PASSWORD;
    if (code === ALINK_CODE.productNotFound || code === ALINK_CODE.deviceNotFound || code === ALINK_CODE.badName) {
        return CODE.IDENTIFIER_REJECTED;
    }
    return CODE.NOT_AUTHORIZED;
}

export function registerOverMqtt(
    deps: MqttRegisterDeps,
    client: Client,
    who: { productKey: string; deviceName: string },
    id: AlibabaClientId,
    password: Buffer | undefined,
    done: AuthenticateDone,
) {
    const name = `${who.deviceName}&${who.productKey}`;
    if (!deps.secure.has(client.conn)) {
        deps.log(`MQTT 动态注册被拒绝（须通过 TLS 连接：MQTTS 端口或 wss://）: ${name}`);
        return done(refuse(CODE.NOT_AUTHORIZED, '动态注册须通过 TLS 连接'), false);
    }
    const mode: DirectMode = id.authType === 'regnwl' ? 'regnwl' : 'register';
    registerDirect(
        deps.db,
        {
            productKey: who.productKey,
            deviceName: who.deviceName,
            random: id.random ?? '',
            signMethod: id.signMethod,
            sign: password?.toString() ?? '',
        },
        mode,
    )
        .then((issued) => {
            const answer =
                mode === 'regnwl'
                    ? {
                          productKey: issued.productKey,
                          deviceName: issued.deviceName,
                          clientId: issued.clientId,
                          deviceToken: issued.deviceSecret,
                      }
                    : {
                          productKey: issued.productKey,
                          deviceName: issued.deviceName,
                          deviceSecret: issued.deviceSecret,
                      };
            deps.registrations.set(client, {
                topic: mode === 'regnwl' ? '/ext/regnwl' : '/ext/register',
                body: JSON.stringify(answer),
            });
            deps.log(`MQTT 动态注册成功: ${name}`);
            done(null, true);
        })
        .catch((err: unknown) => {
            if (!(err instanceof Refusal)) {
                deps.log(`MQTT 动态注册失败（连接已关闭，设备会重连）: ${String(err)}`);
                return dropUndecided(client, done);
            }
            deps.log(`MQTT 动态注册被拒绝（${err.code}）: ${name}：${err.message}`);
            done(refuse(connackOf(err.code), err.message), false);
        });
}

/**
 * aedes' 'client' event of a registration connection: its answer, written to it directly (it subscribed to nothing,
 * as Alibaba's devices do not), then the connection is closed. False for any other connection.
 */
export function answerRegistration(registrations: Registrations, client: Client): boolean {
    const answer = registrations.get(client);
    if (!answer) return false;
    registrations.delete(client);
    const packet = {
        cmd: 'publish',
        topic: answer.topic,
        payload: Buffer.from(answer.body),
        qos: 0,
        retain: false,
        dup: false,
    } as PublishPacket;
    const deliver0 = (client as unknown as { deliver0(p: PublishPacket, cb: () => void): void }).deliver0;
    // A moment for the bytes to leave before the close (write() has queued them on the socket by the callback).
    deliver0.call(client, packet, () => setTimeout(() => client.close(), 100));
    return true;
}
