/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are checked by value, not by type */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otaDir } from '../../server/ota/packages';
import { createTestServer, type TestServer } from '../../server/testing';
import { createProduct } from './devicesSupport';
import { call } from './support';
import { firmware, uploadFirmware } from './otaSupport';

/**
 * Firmware packages: the upload streams to FILES_DIR with its MD5 and SHA-256 computed on the way; bad uploads are
 * refused in Chinese and leave no row and no file; the signed download URL needs no session, refuses an expired or
 * altered URL with 403, and serves ranges so a cut download resumes.
 */

let s: TestServer;
let productId: number;
const LIMIT = 64 * 1024;
const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Files under the OTA directory, partial uploads included. */
function stored(): string[] {
    const dir = otaDir(s.config.filesDir);
    if (!existsSync(dir)) return [];
    const part = path.join(dir, '.part');
    return [
        ...readdirSync(dir).filter((n) => n !== '.part'),
        ...(existsSync(part) ? readdirSync(part).map((n) => `.part/${n}`) : []),
    ];
}

async function packageCount() {
    const list = await call<any>(s, 'GET', '/api/ota/package?pageNumber=1&pageSize=100');
    return list.body.data.total as number;
}

beforeAll(async () => {
    // A small limit stands in for the 200 MB default (OTA_MAX_MB), so "over size" costs 64 KB, not 200 MB.
    s = await createTestServer({ seed: false, config: { ota: { maxBytes: LIMIT, urlHours: 24, baseUrl: undefined } } });
    productId = (await createProduct(s)).productId as number;
});
afterAll(async () => {
    await s?.close();
});

describe('firmware upload', () => {
    const fields = () => ({ name: '主控固件', productId, version: '1.0.1', signMethod: 'MD5' });

    it('refuses bad uploads in Chinese and stores nothing', async () => {
        const bytes = firmware(1000);
        const cases: Array<[Record<string, unknown>, string, Uint8Array<ArrayBuffer> | null, number, RegExp]> = [
            [fields(), 'fw.exe', bytes, 400, /只支持 \.bin/],
            [fields(), 'fw.bin', new Uint8Array(), 400, /^固件文件为空$/],
            [fields(), 'fw.bin', firmware(LIMIT + 1), 413, /不能超过/],
            [{ ...fields(), version: '1.0 beta' }, 'fw.bin', bytes, 400, /版本号只能包含/],
            [{ ...fields(), version: 'x'.repeat(65) }, 'fw.bin', bytes, 400, /不超过64个字符/],
            [{ ...fields(), name: '' }, 'fw.bin', bytes, 400, /^请输入固件名称$/],
            [{ ...fields(), name: '名'.repeat(41) }, 'fw.bin', bytes, 400, /不得超过40个字符/],
            [{ ...fields(), signMethod: 'CRC' }, 'fw.bin', bytes, 400, /签名算法/],
            [{ ...fields(), description: 'd'.repeat(101) }, 'fw.bin', bytes, 400, /描述不得超过100/],
            [{ ...fields(), productId: '' }, 'fw.bin', bytes, 400, /^请选择产品$/],
        ];
        for (const [f, name, body, status, msg] of cases) {
            const a = await uploadFirmware(s, f, name, body);
            expect([a.status, (a.body as any).msg], `${name} ${JSON.stringify(f).slice(0, 80)}`).toEqual([
                status,
                expect.stringMatching(msg),
            ]);
        }
        // Over the limit without a Content-Length (a chunked body): counted as it streams, refused, removed.
        const chunked = new ReadableStream<Uint8Array>({
            start(controller) {
                for (let i = 0; i < 5; i++) controller.enqueue(firmware(LIMIT / 4));
                controller.close();
            },
        });
        const big = await uploadFirmware(s, fields(), 'fw.bin', chunked);
        expect([big.status, (big.body as any).msg]).toEqual([413, '固件文件不能超过0.06MB']);
        // Not a raw body: multipart is refused with what to send instead.
        const multipart = await call<any>(s, 'POST', '/api/ota/package/upload', { body: new FormData() });
        expect(multipart.status).toBe(400);
        expect(multipart.body.msg).toMatch(/application\/octet-stream/);
        expect(stored()).toEqual([]);
        expect(await packageCount()).toBe(0);
    });

    it('leaves nothing behind when the body is cut off midway', async () => {
        const cut = new ReadableStream<Uint8Array>({
            pull(controller) {
                controller.enqueue(firmware(1000));
                controller.error(new Error('connection reset'));
            },
        });
        const a = await s.fetch(
            `/api/ota/package/upload?${new URLSearchParams({ name: 'cut', productId: String(productId), version: '9.9.9', signMethod: 'MD5', fileName: 'cut.bin' })}`,
            {
                method: 'POST',
                body: cut,
                headers: { 'content-type': 'application/octet-stream' },
                duplex: 'half',
            } as RequestInit,
        );
        expect(a.status).toBeGreaterThanOrEqual(400);
        expect(stored()).toEqual([]);
        expect(await packageCount()).toBe(0);
    });

    it('keeps the file with its MD5 and SHA-256; the same version again is 409', async () => {
        const bytes = firmware(40_000);
        const a = await uploadFirmware(
            s,
            { ...fields(), sourceVersions: '1.0.0, 0.9.9', description: '修复' },
            'fw.bin',
            bytes,
        );
        expect(a.status).toBe(200);
        expect((a.body as any).data).toMatchObject({
            name: '主控固件',
            module: 'default',
            version: '1.0.1',
            sourceVersions: ['1.0.0', '0.9.9'],
            size: 40_000,
            md5: md5(bytes),
            sha256: sha256(bytes),
            fileName: 'fw.bin',
            verified: false,
        });
        expect(stored()).toHaveLength(1);
        const again = await uploadFirmware(s, fields(), 'fw2.bin', firmware(10));
        expect([again.status, (again.body as any).msg]).toEqual([
            409,
            '该产品的此模块已有相同版本的固件，请修改版本号',
        ]);
        // Another module may carry the same version.
        const other = await uploadFirmware(s, { ...fields(), module: 'wifi' }, 'wifi.zip', firmware(10));
        expect(other.status).toBe(200);
        expect(stored()).toHaveLength(2);
        expect(await packageCount()).toBe(2);
    });
});

describe('signed downloads', () => {
    let id: number;
    const bytes = firmware(60_000);
    beforeAll(async () => {
        const a = await uploadFirmware(
            s,
            { name: 'dl', productId, version: '2.0.0', signMethod: 'SHA256' },
            'dl.bin',
            bytes,
        );
        id = (a.body as any).data.id;
    });

    it('serves a signed URL without a session, and refuses expired or altered ones with 403', async () => {
        const url = await s.ota.signer.sign(id, Date.now() + 60_000);
        const full = await s.anonFetch(url);
        expect(full.status).toBe(200);
        expect(full.headers.get('accept-ranges')).toBe('bytes');
        expect(sha256(new Uint8Array(await full.arrayBuffer()))).toBe(sha256(bytes));

        const expired = await s.anonFetch(await s.ota.signer.sign(id, Date.now() - 1));
        expect(expired.status).toBe(403);
        expect(((await expired.json()) as any).msg).toMatch(/已过期/);
        for (const altered of [
            url.replace(`packageId=${id}`, `packageId=${id + 1}`),
            url.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 1000}`),
            url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`),
            url.replace(/&signature=.*/, ''),
        ]) {
            const a = await s.anonFetch(altered);
            expect(a.status, altered).toBe(403);
        }
    });

    it('resumes a download cut halfway with Range', async () => {
        const url = await s.ota.signer.sign(id, Date.now() + 60_000);
        // The device read the first half, then the connection dropped.
        const first = await s.anonFetch(url);
        const reader = first.body!.getReader();
        const got: Uint8Array[] = [];
        const half = bytes.length / 2;
        let n = 0;
        while (n < half) {
            const { value } = await reader.read();
            // What the device had written when the connection dropped: the first half, not a byte more.
            const kept = value!.subarray(0, half - n);
            got.push(kept);
            n += kept.length;
        }
        await reader.cancel();
        const rest = await s.anonFetch(url, { headers: { range: `bytes=${n}-` } });
        expect(rest.status).toBe(206);
        expect(rest.headers.get('content-range')).toBe(`bytes ${n}-${bytes.length - 1}/${bytes.length}`);
        expect(Number(rest.headers.get('content-length'))).toBe(bytes.length - n);
        got.push(new Uint8Array(await rest.arrayBuffer()));
        expect(sha256(Buffer.concat(got))).toBe(sha256(bytes));

        const tail = await s.anonFetch(url, { headers: { range: 'bytes=-10' } });
        expect(Buffer.from(await tail.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(bytes.length - 10)));
        const beyond = await s.anonFetch(url, { headers: { range: `bytes=${bytes.length}-` } });
        expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, `bytes */${bytes.length}`]);
    });

    it('deletes a package with its file', async () => {
        const before = stored().length;
        const a = await call<any>(s, 'POST', '/api/ota/package/delete', {
            body: JSON.stringify({ id }),
            headers: { 'content-type': 'application/json' },
        });
        expect(a.status).toBe(200);
        expect(stored()).toHaveLength(before - 1);
        const gone = await s.anonFetch(await s.ota.signer.sign(id, Date.now() + 60_000));
        expect(gone.status).toBe(404);
    });
});
