import { connect as netConnect, type Socket } from 'node:net';
import { alibabaCredentials } from '../../../server/mqtt/signIn';
import type { BenchDevice } from '../harness';
import { connectPacket, packetReader, subscribePacket } from '../mqtt/packets';

/**
 * Bare-socket devices for the connMemory bench: each signs in with Alibaba's scheme and subscribes, one SUBSCRIBE
 * (QoS 1) per topic filter as alibabacloud-iot-device-sdk does on connect (thing.js _subscribePresetTopic, the filters
 * of lib/const.js), then the OTA upgrade topic an OTA-capable device adds. Then they stay idle until closed.
 */

/** The filters the SDK subscribes on connect, then /ota/device/upgrade. */
export function deviceFilters(productKey: string, deviceName: string): string[] {
    const sys = `/sys/${productKey}/${deviceName}`;
    const session = `/ext/session/${productKey}/${deviceName}`;
    return [
        `${sys}/thing/event/property/post_reply`,
        `${sys}/thing/service/property/set`,
        `${sys}/thing/event/+/post_reply`,
        `${sys}/thing/deviceinfo/update_reply`,
        `${sys}/thing/deviceinfo/delete_reply`,
        `${sys}/thing/config/get_reply`,
        `/shadow/get/${productKey}/${deviceName}`,
        `${sys}/thing/config/push`,
        `${sys}/thing/config/push_reply`,
        `${sys}/thing/topo/add_reply`,
        `${sys}/thing/topo/delete_reply`,
        `${sys}/thing/topo/get_reply`,
        `${session}/combine/login_reply`,
        `${session}/combine/logout_reply`,
        `${sys}/thing/sub/register_reply`,
        `${sys}/rrpc/request/+`,
        `/ota/device/upgrade/${productKey}/${deviceName}`,
    ];
}

export interface Connected {
    socket: Socket;
    /** SUBACK return codes other than 0x80 (refused). */
    granted: number;
}

/** One device: CONNECT (`clean` session or not), then its filters; resolves once every SUBACK came, or undefined. */
export function openDevice(port: number, [productKey, deviceName, secret]: BenchDevice, clean: boolean) {
    return new Promise<Connected | undefined>((resolve) => {
        // The clientId as the brief's devices name themselves: `{deviceName}|securemode=3,signmethod=hmacsha1,timestamp=…|`.
        const creds = alibabaCredentials(
            { productKey, deviceName, secret },
            { id: deviceName, signMethod: 'hmacsha1' },
        );
        const filters = deviceFilters(productKey, deviceName);
        const connect = connectPacket(creds.clientId, creds.username, creds.password, 300);
        // connectPacket sets clean session (0x02 of the flags byte at offset 9 of its variable header).
        const flagsAt = connect.indexOf(Buffer.from('MQTT')) + 5;
        if (!clean) connect[flagsAt] &= ~0x02;
        const socket = netConnect({ port, host: '127.0.0.1', noDelay: true }, () => socket.write(connect));
        const done = { acks: 0, granted: 0 };
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (type === 2) {
                    if (p[body + 1] !== 0) return socket.destroy();
                    for (const f of filters) socket.write(subscribePacket(f, 1));
                } else if (type === 9) {
                    done.acks++;
                    if (p[p.length - 1] !== 0x80) done.granted++;
                    if (done.acks === filters.length) resolve({ socket, granted: done.granted });
                }
            }),
        );
        socket.once('error', () => undefined);
        socket.once('close', () => resolve(undefined));
    });
}

/** Connects every device, `parallel` at a time; fails when one does not connect. */
export async function connectAll(port: number, devices: BenchDevice[], clean: boolean, parallel = 200) {
    const held: Connected[] = [];
    let next = 0;
    await Promise.all(
        Array.from({ length: parallel }, async () => {
            while (next < devices.length) {
                const d = await openDevice(port, devices[next++], clean);
                if (!d) throw new Error('a bench device did not connect');
                held.push(d);
            }
        }),
    );
    return held;
}

/** Each device sends DISCONNECT and closes its socket, as the SDK's end() does; resolves once all are closed. */
export function disconnectAll(held: Connected[]) {
    return Promise.all(
        held.map(
            ({ socket }) =>
                new Promise<void>((resolve) => {
                    socket.once('close', () => resolve());
                    socket.end(Buffer.from([0xe0, 0]));
                }),
        ),
    );
}
