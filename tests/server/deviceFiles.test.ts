import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_EXTENSIONS, FILE_MAX_BYTES, FILE_MESSAGES } from '../../schemas/deviceFile';
import { deviceFiles } from '../../server/db/schema';
import { startLeftoverSweeper, SWEEP_GRACE_MS, sweepOrphanFiles } from '../../server/domain/deviceFiles';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';

let s: TestServer;
let product: TestProduct;
let root: string;
let filesDir: string;
const errors: unknown[] = [];

beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'iot-files-test-'));
    filesDir = path.join(root, 'files');
    s = await createTestServer({ config: { filesDir }, logError: (_m, err) => errors.push(err) });
    product = await createProduct(s);
});
afterAll(async () => {
    await s?.close();
    rmSync(root, { recursive: true, force: true });
});

interface StoredFile {
    fileId: number;
    fileName: string;
    size: number;
    createTime: string;
    downloadUrl: string;
}

/** Every file under the files directory (the temporary uploads too), relative to it. */
function filesOnDisk(): string[] {
    if (!existsSync(filesDir)) return [];
    return (readdirSync(filesDir, { recursive: true }) as string[]).filter((p) => p !== '.tmp').sort();
}

function multipart(deviceId: number | string | undefined, file?: File | string): RequestInit {
    const body = new FormData();
    if (deviceId !== undefined) body.set('deviceId', String(deviceId));
    if (file !== undefined) body.set('file', file);
    return { body };
}

async function upload(deviceId: number, file: File) {
    const answer = await call(s, 'POST', '/api/device/file/upload', multipart(deviceId, file));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as StoredFile;
}

async function download(fileId: number) {
    return s.fetch(`/api/device/file/download?fileId=${fileId}`);
}

/** Expects the device-family refusal with this message and status, and no row or file written. */
async function expectRefused(target: string, init: RequestInit, msg: string, status = 400) {
    const before = { rows: await rowCounts(s.db), files: filesOnDisk() };
    const answer = await call(s, 'POST', target, init);
    expect(answer.body).toEqual({ code: 1, msg });
    expect(answer.status).toBe(status);
    expect({ rows: await rowCounts(s.db), files: filesOnDisk() }).toEqual(before);
}

describe('device files: upload, list, download', () => {
    it('stores the bytes under a generated name and answers the file; download gives the same bytes back', async () => {
        const d = await createDevice(s, product.productKey);
        const bytes = randomBytes(300_000);
        const before = filesOnDisk();
        const stored = await upload(
            d.deviceId,
            new File([bytes], '固件 v1.2.bin', { type: 'application/octet-stream' }),
        );
        expect(stored).toEqual({
            fileId: expect.any(Number),
            fileName: '固件 v1.2.bin',
            size: bytes.length,
            createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
            downloadUrl: `/api/device/file/download?fileId=${stored.fileId}`,
        });
        const added = filesOnDisk().filter((f) => !before.includes(f));
        expect(added).toHaveLength(1);
        expect(added[0]).toMatch(/^f_[0-9a-f]{32}$/);
        expect(readFileSync(path.join(filesDir, added[0])).equals(bytes)).toBe(true);

        const res = await download(stored.fileId);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-disposition')).toBe(
            `attachment; filename="__ v1.2.bin"; filename*=UTF-8''${encodeURIComponent('固件 v1.2.bin')}`,
        );
        expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('lists the device files newest first, paged by pageSize, with the total', async () => {
        const d = await createDevice(s, product.productKey);
        const other = await createDevice(s, product.productKey);
        await upload(other.deviceId, new File(['x'], 'other.txt'));
        const ids: number[] = [];
        for (let i = 0; i < 12; i++)
            ids.push((await upload(d.deviceId, new File([`log ${i}`], `run-${i}.log`))).fileId);
        const page1 = await call(s, 'GET', `/api/device/file/list?deviceId=${d.deviceId}&pageNumber=1&pageSize=10`);
        const data1 = page1.body.data as { records: StoredFile[]; total: number };
        expect(data1.total).toBe(12);
        expect(data1.records.map((r) => r.fileId)).toEqual(ids.slice().reverse().slice(0, 10));
        expect(data1.records[0]).toMatchObject({ fileName: 'run-11.log', size: 'log 11'.length });
        const page2 = await call(s, 'GET', `/api/device/file/list?deviceId=${d.deviceId}&pageNumber=2&pageSize=10`);
        expect((page2.body.data as { records: StoredFile[] }).records.map((r) => r.fileId)).toEqual([ids[1], ids[0]]);
    });

    it('keeps a path in the name as data only: ../../x.bin is listed as x.bin and written inside the files directory', async () => {
        const d = await createDevice(s, product.productKey);
        const before = filesOnDisk();
        for (const name of ['../../x.bin', '..\\..\\y.bin', '/etc/z.bin']) {
            const stored = await upload(d.deviceId, new File(['payload'], name));
            expect(stored.fileName).toBe(path.basename(name.replace(/\\/g, '/')));
        }
        expect(existsSync(path.join(filesDir, '../../x.bin'))).toBe(false);
        expect(existsSync(path.join(root, 'x.bin'))).toBe(false);
        expect(existsSync(path.join(filesDir, '..', 'y.bin'))).toBe(false);
        const added = filesOnDisk().filter((f) => !before.includes(f));
        expect(added).toHaveLength(3);
        expect(added.every((f) => /^f_[0-9a-f]{32}$/.test(f))).toBe(true);
    });

    it('serves an uploaded page as an attachment of octet-stream, never as HTML', async () => {
        const d = await createDevice(s, product.productKey);
        const stored = await upload(
            d.deviceId,
            new File(['<html><script>alert(1)</script></html>'], 'page.txt', { type: 'text/html' }),
        );
        const res = await download(stored.fileId);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
        expect(res.headers.get('content-security-policy')).toContain('sandbox');
    });

    it('accepts a file of exactly 20MB and every listed extension', async () => {
        const d = await createDevice(s, product.productKey);
        const big = await upload(d.deviceId, new File([new Uint8Array(FILE_MAX_BYTES)], 'full.img'));
        expect(big.size).toBe(FILE_MAX_BYTES);
        for (const ext of FILE_EXTENSIONS) {
            const stored = await upload(d.deviceId, new File(['1'], `a.${ext.toUpperCase()}`));
            expect(stored.fileName).toBe(`a.${ext.toUpperCase()}`);
        }
    });
});

describe('device files: refusals write nothing', () => {
    let deviceId: number;
    beforeAll(async () => {
        deviceId = (await createDevice(s, product.productKey)).deviceId;
    });
    const target = '/api/device/file/upload';

    it('refuses a file of 20MB and one byte with 413', async () => {
        await expectRefused(
            target,
            multipart(deviceId, new File([new Uint8Array(FILE_MAX_BYTES + 1)], 'big.bin')),
            FILE_MESSAGES.tooLarge,
            413,
        );
    });

    it('refuses a body far over the limit with 413 before reading it whole', async () => {
        await expectRefused(
            target,
            multipart(deviceId, new File([new Uint8Array(FILE_MAX_BYTES + 2 * 1024 * 1024)], 'huge.bin')),
            FILE_MESSAGES.tooLarge,
            413,
        );
        // A declared length over the limit is refused on the header alone.
        const body = new Uint8Array(10);
        await expectRefused(
            target,
            {
                body,
                headers: {
                    'content-type': 'multipart/form-data; boundary=x',
                    'content-length': String(FILE_MAX_BYTES + 1024 * 1024),
                },
            },
            FILE_MESSAGES.tooLarge,
            413,
        );
    });

    it.each([
        ['no file', () => multipart(deviceId), FILE_MESSAGES.required, 400],
        ['a text value instead of a file', () => multipart(deviceId, 'abc'), FILE_MESSAGES.required, 400],
        ['an empty file', () => multipart(deviceId, new File([], 'empty.bin')), FILE_MESSAGES.empty, 400],
        ['an .exe', () => multipart(deviceId, new File(['MZ'], 'tool.exe')), FILE_MESSAGES.type, 400],
        ['an .html', () => multipart(deviceId, new File(['<p>'], 'index.html')), FILE_MESSAGES.type, 400],
        ['a name without extension', () => multipart(deviceId, new File(['x'], 'README')), FILE_MESSAGES.type, 400],
        ['a name that is only a path', () => multipart(deviceId, new File(['x'], '../')), FILE_MESSAGES.type, 400],
        [
            'a name of 101 characters',
            () => multipart(deviceId, new File(['x'], `${'名'.repeat(97)}.bin`)),
            FILE_MESSAGES.nameTooLong,
            400,
        ],
        ['no deviceId', () => multipart(undefined, new File(['x'], 'a.bin')), '缺少设备ID', 400],
        ['an unknown device', () => multipart(99999999, new File(['x'], 'a.bin')), '设备不存在', 404],
    ])('refuses %s', async (_name, init, msg, status) => {
        await expectRefused(target, init(), msg, status);
    });

    it('refuses a body that is not multipart', async () => {
        await expectRefused(target, form({ deviceId }), FILE_MESSAGES.required);
    });

    it('keeps no file when the row cannot be inserted', async () => {
        // A trigger makes the insert fail after the bytes were written.
        await s.db.execute(sql`CREATE FUNCTION refuse_file() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'refused by test'; END $$`);
        await s.db.execute(
            sql`CREATE TRIGGER refuse_file BEFORE INSERT ON device_files FOR EACH ROW EXECUTE FUNCTION refuse_file()`,
        );
        try {
            const before = { rows: await rowCounts(s.db), files: filesOnDisk() };
            errors.length = 0;
            const res = await s.fetch(target, { method: 'POST', ...multipart(deviceId, new File(['bytes'], 'a.bin')) });
            expect(res.status).toBe(500);
            expect(await res.json()).toEqual({ code: 1, msg: '系统错误' });
            expect(errors).toHaveLength(1);
            expect({ rows: await rowCounts(s.db), files: filesOnDisk() }).toEqual(before);
            expect(readdirSync(path.join(filesDir, '.tmp'))).toEqual([]);
        } finally {
            await s.db.execute(sql`DROP TRIGGER refuse_file ON device_files`);
            await s.db.execute(sql`DROP FUNCTION refuse_file()`);
        }
    });

    it('writes no row when the bytes cannot be written', async () => {
        const blocker = path.join(root, 'not-a-directory');
        writeFileSync(blocker, 'x');
        const saved = s.config.filesDir;
        s.config.filesDir = path.join(blocker, 'files');
        try {
            const before = await rowCounts(s.db);
            const res = await s.fetch(target, { method: 'POST', ...multipart(deviceId, new File(['bytes'], 'a.bin')) });
            expect(res.status).toBe(500);
            expect(await rowCounts(s.db)).toEqual(before);
        } finally {
            s.config.filesDir = saved;
        }
    });
});

describe('device files: download and delete', () => {
    it('deletes the row and the bytes; the file is then gone for download and delete', async () => {
        const d = await createDevice(s, product.productKey);
        const stored = await upload(d.deviceId, new File(['abc'], 'a.txt'));
        const onDisk = filesOnDisk();
        const answer = await call(s, 'POST', '/api/device/file/delete', form({ fileId: stored.fileId }));
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ code: 0, msg: 'success', data: null });
        expect(filesOnDisk()).toHaveLength(onDisk.length - 1);
        const list = await call(s, 'GET', `/api/device/file/list?deviceId=${d.deviceId}`);
        expect(list.body.data).toEqual({ records: [], total: 0 });
        const res = await download(stored.fileId);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ code: 1, msg: '文件不存在' });
        await expectRefused('/api/device/file/delete', form({ fileId: stored.fileId }), '文件不存在', 404);
        await expectRefused('/api/device/file/delete', form({}), '缺少文件ID');
    });

    it('answers 404 for an unknown file, 404 for an unknown device, and 文件不存在 when the bytes are missing', async () => {
        const missing = await s.fetch('/api/device/file/download?fileId=99999999');
        expect(missing.status).toBe(404);
        expect(await missing.json()).toEqual({ code: 1, msg: '文件不存在' });
        const list = await call(s, 'GET', '/api/device/file/list?deviceId=99999999');
        expect(list.status).toBe(404);
        expect(list.body).toEqual({ code: 1, msg: '设备不存在' });

        const d = await createDevice(s, product.productKey);
        const before = filesOnDisk();
        const stored = await upload(d.deviceId, new File(['abc'], 'a.txt'));
        const [name] = filesOnDisk().filter((f) => !before.includes(f));
        rmSync(path.join(filesDir, name));
        const res = await download(stored.fileId);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ code: 1, msg: '文件不存在' });
    });
});

describe('files of deleted devices', () => {
    it('lose their rows with the device; the sweep removes their bytes once older than the grace period', async () => {
        const gone = await createDevice(s, product.productKey);
        const kept = await createDevice(s, product.productKey);
        const before = filesOnDisk();
        await upload(gone.deviceId, new File(['gone'], 'gone.bin'));
        const [goneName] = filesOnDisk().filter((f) => !before.includes(f));
        const keptFile = await upload(kept.deviceId, new File(['kept'], 'kept.bin'));
        const res = await s.fetch(`/api/device?deviceId=${gone.deviceId}`, { method: 'DELETE' });
        expect(res.status).toBe(200);
        const rows = await s.db.select({ id: deviceFiles.id }).from(deviceFiles);
        expect(rows.map((r) => Number(r.id))).toContain(keptFile.fileId);
        expect(existsSync(path.join(filesDir, goneName))).toBe(true);

        // Something that is not ours, and a partial upload left by a crash.
        writeFileSync(path.join(filesDir, 'notes.txt'), 'mine');
        const partial = path.join(filesDir, '.tmp', `f_${'0'.repeat(32)}.part`);
        writeFileSync(partial, 'half');

        // Young files are left alone: an upload renames its file before its row commits.
        expect(await sweepOrphanFiles(s.db, filesDir)).toEqual({ files: 0, partials: 0 });
        expect(existsSync(path.join(filesDir, goneName))).toBe(true);

        const later = new Date(Date.now() + SWEEP_GRACE_MS + 60_000);
        const old = new Date(Date.now() - SWEEP_GRACE_MS - 60_000);
        utimesSync(path.join(filesDir, 'notes.txt'), old, old);
        const result = await sweepOrphanFiles(s.db, filesDir, later);
        expect(result).toEqual({ files: 1, partials: 1 });
        expect(existsSync(path.join(filesDir, goneName))).toBe(false);
        expect(existsSync(partial)).toBe(false);
        expect(existsSync(path.join(filesDir, 'notes.txt'))).toBe(true);
        const kept2 = await download(keptFile.fileId);
        expect(await kept2.text()).toBe('kept');
    });

    it('are swept when the server starts (startLeftoverSweeper runs once at once, then on a timer)', async () => {
        const orphan = path.join(filesDir, `f_${'a'.repeat(32)}`);
        writeFileSync(orphan, 'left behind');
        const old = new Date(Date.now() - SWEEP_GRACE_MS - 60_000);
        utimesSync(orphan, old, old);
        const failures: unknown[] = [];
        const stop = startLeftoverSweeper(s.db, filesDir, (_m, err) => failures.push(err));
        try {
            for (let i = 0; i < 200 && existsSync(orphan); i++) await new Promise((r) => setTimeout(r, 25));
            expect(existsSync(orphan)).toBe(false);
            expect(failures).toEqual([]);
        } finally {
            stop();
        }
    });
});
