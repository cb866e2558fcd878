import { createHash } from 'node:crypto';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { otaTopics } from '../../server/ota/protocol';
import type { TestServer } from '../../server/testing';
import { connect, nextMessage } from './mqttSupport';
import { call } from './support';

/** Deterministic firmware bytes of a size (no two sizes alike at the start). */
export function firmware(size: number, seed = 7): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(size);
    let x = (seed * 2654435761 + size) >>> 0;
    for (let i = 0; i < size; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        out[i] = x >>> 24;
    }
    return out;
}

/** 上传固件 as the console sends it: the file as the body, the fields in the query. */
export function uploadFirmware(
    s: TestServer,
    fields: Record<string, unknown>,
    fileName: string,
    body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
) {
    const query = new URLSearchParams({ fileName });
    for (const [k, v] of Object.entries(fields)) query.set(k, String(v));
    return call(s, 'POST', `/api/ota/package/upload?${query}`, {
        body,
        headers: { 'content-type': 'application/octet-stream' },
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
}

export type DeviceBehaviour = 'upgrade' | 'corrupt' | 'silent';

/**
 * A device written for Alibaba's OTA protocol, over mqtt.js: it subscribes to its upgrade topic, informs its version,
 * and on a push downloads the URL (through `download`), checks the signature with the pushed method, reports progress
 * and informs the new version; 'corrupt' flips a byte of what it downloaded (its check fails: step -3), 'silent'
 * never answers (the batch's timeout fails it).
 */
export async function otaDevice(
    url: string,
    device: { productKey: string; deviceName: string; secret: string },
    download: (path: string, range?: string) => Promise<Response>,
    behaviour: DeviceBehaviour = 'upgrade',
) {
    const client = await connect(url, alibabaCredentials(device));
    const topics = otaTopics(device);
    await client.subscribeAsync([topics.upgrade, topics.firmwareGetReply], { qos: 1 });
    const pushes: Array<{ data: Record<string, unknown> }> = [];
    let version = '';
    const inform = (v: string, module = 'default') => {
        version = v;
        return client.publishAsync(
            topics.inform,
            JSON.stringify({ id: String(Date.now()), params: { version: v, module } }),
            { qos: 1 },
        );
    };
    const progress = (step: number | string, desc = '', module = 'default') =>
        client.publishAsync(
            topics.progress,
            JSON.stringify({ id: '1', params: { step: String(step), desc, module } }),
            {
                qos: 1,
            },
        );
    client.on('message', (topic, payload) => {
        if (topic !== topics.upgrade) return;
        const push = JSON.parse(payload.toString()) as { data: Record<string, unknown> };
        pushes.push(push);
        if (behaviour === 'silent') return;
        void (async () => {
            const d = push.data;
            const target = new URL(String(d.url));
            const res = await download(target.pathname + target.search);
            const bytes = Buffer.from(await res.arrayBuffer());
            if (behaviour === 'corrupt') bytes[0] ^= 0xff;
            await progress(30, '下载中', String(d.module));
            const hash = createHash(d.signMethod === 'MD5' ? 'md5' : 'sha256')
                .update(bytes)
                .digest('hex');
            if (hash !== d.sign || (d.signMethod === 'MD5' && hash !== d.md5)) {
                await progress(-3, '固件签名不一致', String(d.module));
                return;
            }
            await progress(100, '升级完成', String(d.module));
            await inform(String(d.version), String(d.module));
        })();
    });
    return {
        client,
        pushes,
        inform,
        progress,
        get version() {
            return version;
        },
        /** /thing/ota/firmware/get: the answer on get_reply. */
        async firmwareGet(module = 'default') {
            const reply = nextMessage(client, topics.firmwareGetReply);
            await client.publishAsync(topics.firmwareGet, JSON.stringify({ id: '77', params: { module } }), { qos: 1 });
            return reply;
        },
        end: () => client.endAsync(true),
    };
}
