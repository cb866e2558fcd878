import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { FILE_MAX_BYTES, FILE_MESSAGES, fileProblem } from '../../schemas/deviceFile';
import type { Db } from '../db/client';
import { deviceFiles, devices } from '../db/schema';
import { badRequest, isForeignKeyViolation, notFound, tooLarge } from '../http/errors';
import { formatTime } from '../http/time';

export const FILE_NOT_FOUND = '文件不存在';

/** Generated names of stored files: nothing a client sends ever becomes part of a path. */
const STORED_NAME = /^f_[0-9a-f]{32}$/;
/** Uploads in flight are written here first, then renamed into the files directory (same file system). */
const TMP_DIR = '.tmp';

export interface DeviceFile {
    fileId: number;
    fileName: string;
    size: number;
    createTime: string | null;
    downloadUrl: string;
}

export const downloadUrl = (fileId: number) => `/api/device/file/download?fileId=${fileId}`;

function toFile(row: { id: number; fileName: string; size: number; createTime: Date }, timeZone: string): DeviceFile {
    const fileId = Number(row.id);
    return {
        fileId,
        fileName: row.fileName,
        size: Number(row.size),
        createTime: formatTime(row.createTime, timeZone),
        downloadUrl: downloadUrl(fileId),
    };
}

/**
 * The name a file is listed and downloaded under: the last segment of what the client sent (browsers send a bare
 * name, old ones a whole path), without control characters, trimmed. It is only ever data, never a path.
 */
export function cleanFileName(raw: string): string {
    const last = raw.split(/[/\\]/).pop() ?? '';
    // eslint-disable-next-line no-control-regex
    return last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
}

/** An ASCII stand-in for Content-Disposition's plain filename (old clients); filename* carries the real name. */
export function asciiFallback(name: string): string {
    const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
    return ascii.replace(/^[_ .]+$/, '') || 'file';
}

export async function deviceExists(db: Db, deviceId: number): Promise<boolean> {
    const [row] = await db.select({ id: devices.id }).from(devices).where(eq(devices.id, deviceId));
    return row !== undefined;
}

/** A page of the device's files, newest first (the index device_files_device_idx serves it). */
export async function listFiles(db: Db, deviceId: number, limit: number, offset: number, timeZone: string) {
    if (!(await deviceExists(db, deviceId))) throw notFound('设备不存在');
    const rows = await db
        .select({
            id: deviceFiles.id,
            fileName: deviceFiles.fileName,
            size: deviceFiles.size,
            createTime: deviceFiles.createTime,
        })
        .from(deviceFiles)
        .where(eq(deviceFiles.deviceId, deviceId))
        .orderBy(desc(deviceFiles.deviceId), desc(deviceFiles.id))
        .limit(limit)
        .offset(offset);
    const [count] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(deviceFiles)
        .where(eq(deviceFiles.deviceId, deviceId));
    return { records: rows.map((r) => toFile(r, timeZone)), total: Number(count.n) };
}

export interface Upload {
    deviceId: number;
    /** The client's name (cleaned here). */
    name: string;
    /** The client's content type, kept as data only: downloads are always application/octet-stream. */
    type: string;
    size: number;
    stream(): ReadableStream<Uint8Array>;
}

/** Counts bytes as they pass and fails the stream past the limit, whatever size the client claimed. */
function byteLimit(max: number) {
    let seen = 0;
    const stream = new Transform({
        transform(chunk: Buffer, _enc, done) {
            seen += chunk.length;
            if (seen > max) done(tooLarge(FILE_MESSAGES.tooLarge));
            else done(null, chunk);
        },
    });
    return { stream, bytes: () => seen };
}

/**
 * Stores an upload: checked (device, then size, emptiness, type, name length), streamed into a temporary file while its
 * bytes are counted, then moved under a generated name inside the transaction that inserts its row. The row and the
 * file exist both or neither: a refusal or failure at any step removes what was written.
 */
export async function storeFile(db: Db, filesDir: string, upload: Upload, timeZone: string): Promise<DeviceFile> {
    if (!(await deviceExists(db, upload.deviceId))) throw notFound('设备不存在');
    const fileName = cleanFileName(upload.name);
    const problem = fileProblem({ name: fileName, size: upload.size });
    if (problem === FILE_MESSAGES.tooLarge) throw tooLarge(problem);
    if (problem) throw badRequest(problem);

    const tmpDir = path.join(filesDir, TMP_DIR);
    await mkdir(tmpDir, { recursive: true });
    const storedName = `f_${randomBytes(16).toString('hex')}`;
    const tmpPath = path.join(tmpDir, `${storedName}.part`);
    const finalPath = path.join(filesDir, storedName);
    const counter = byteLimit(FILE_MAX_BYTES);
    try {
        await pipeline(
            Readable.fromWeb(upload.stream() as Parameters<typeof Readable.fromWeb>[0]),
            counter.stream,
            createWriteStream(tmpPath, { flags: 'wx' }),
        );
        const written = counter.bytes();
        if (written === 0) throw badRequest(FILE_MESSAGES.empty);
        const row = await db.transaction(async (tx) => {
            const [inserted] = await tx
                .insert(deviceFiles)
                .values({
                    deviceId: upload.deviceId,
                    fileName,
                    storedName,
                    size: written,
                    contentType: upload.type || null,
                })
                .returning({
                    id: deviceFiles.id,
                    fileName: deviceFiles.fileName,
                    size: deviceFiles.size,
                    createTime: deviceFiles.createTime,
                });
            // Inside the transaction: if the move fails the row is rolled back; if the commit fails, catch removes it.
            await rename(tmpPath, finalPath);
            return inserted;
        });
        return toFile(row, timeZone);
    } catch (err) {
        await rm(tmpPath, { force: true });
        await rm(finalPath, { force: true });
        // The device was deleted between the check and the insert.
        if (isForeignKeyViolation(err)) throw notFound('设备不存在');
        throw err;
    }
}

/** The stored file of a row, for a download. 404 文件不存在 when the row or its bytes are gone. */
export async function openFile(db: Db, filesDir: string, fileId: number) {
    const [row] = await db
        .select({ fileName: deviceFiles.fileName, storedName: deviceFiles.storedName, size: deviceFiles.size })
        .from(deviceFiles)
        .where(eq(deviceFiles.id, fileId));
    if (!row || !STORED_NAME.test(row.storedName)) throw notFound(FILE_NOT_FOUND);
    const filePath = path.join(filesDir, row.storedName);
    let size: number;
    try {
        size = (await stat(filePath)).size;
    } catch {
        throw notFound(FILE_NOT_FOUND);
    }
    return {
        fileName: row.fileName,
        size,
        stream: () => Readable.toWeb(createReadStream(filePath)) as ReadableStream<Uint8Array>,
    };
}

/** Deletes the row, then its bytes (a file left behind by a crash in between is swept as an orphan). */
export async function deleteFile(db: Db, filesDir: string, fileId: number): Promise<void> {
    const [row] = await db
        .delete(deviceFiles)
        .where(eq(deviceFiles.id, fileId))
        .returning({ storedName: deviceFiles.storedName });
    if (!row) throw notFound(FILE_NOT_FOUND);
    if (STORED_NAME.test(row.storedName)) await rm(path.join(filesDir, row.storedName), { force: true });
}

export interface SweepResult {
    /** Stored files with no row (their device was deleted, or a crash came between row and file). */
    files: number;
    /** Uploads interrupted before they were moved into place. */
    partials: number;
}

/** Files younger than this are left alone: an upload renames its file before its row commits. */
export const SWEEP_GRACE_MS = 10 * 60 * 1000;

/**
 * Removes what no row refers to: stored files whose row is gone (deleting a device cascades its rows, not its
 * bytes) and stale partial uploads. Only names this module generates are touched, only when older than
 * SWEEP_GRACE_MS, so an upload in flight is never removed. The directory must belong to this database alone.
 */
export async function sweepOrphanFiles(db: Db, filesDir: string, now: Date = new Date()): Promise<SweepResult> {
    const result: SweepResult = { files: 0, partials: 0 };
    const cutoff = now.getTime() - SWEEP_GRACE_MS;
    const old = async (p: string) => {
        try {
            return (await stat(p)).mtimeMs < cutoff;
        } catch {
            return false;
        }
    };
    let names: string[];
    try {
        names = (await readdir(filesDir)).filter((n) => STORED_NAME.test(n));
    } catch {
        return result; // No files directory yet: nothing was ever uploaded.
    }
    for (let i = 0; i < names.length; i += 1000) {
        const chunk = names.slice(i, i + 1000);
        const rows = await db
            .select({ storedName: deviceFiles.storedName })
            .from(deviceFiles)
            .where(inArray(deviceFiles.storedName, chunk));
        const known = new Set(rows.map((r) => r.storedName));
        for (const name of chunk) {
            const p = path.join(filesDir, name);
            if (!known.has(name) && (await old(p))) {
                await rm(p, { force: true });
                result.files++;
            }
        }
    }
    const tmpDir = path.join(filesDir, TMP_DIR);
    const partials = await readdir(tmpDir).catch(() => [] as string[]);
    for (const name of partials) {
        const p = path.join(tmpDir, name);
        if (/^f_[0-9a-f]{32}\.part$/.test(name) && (await old(p))) {
            await rm(p, { force: true });
            result.partials++;
        }
    }
    return result;
}

/** How often a running server sweeps (besides once at its start). */
export const SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000;

/**
 * Sweeps orphan files once now and then every SWEEP_INTERVAL_MS, in the background:
 * call it from the server's start (server/index.ts), never from tests that share a files directory. The timer does
 * not keep the process alive; the returned function stops it.
 */
export function startLeftoverSweeper(
    db: Db,
    filesDir: string,
    logError: (message: string, err: unknown) => void = (m, e) => console.error(m, e),
): () => void {
    const run = async () => {
        try {
            await sweepOrphanFiles(db, filesDir);
        } catch (err) {
            logError('清理孤立的设备文件失败 / sweeping orphan device files failed:', err);
        }
    };
    void run();
    const timer = setInterval(() => void run(), SWEEP_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
}
