import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray } from 'drizzle-orm';
import { OTA_EXTENSIONS, OTA_MESSAGES, otaPackageSchema, splitVersions } from '../../schemas/ota';
import type { Db } from '../db/client';
import { otaBatches, otaPackages, products } from '../db/schema';
import { cleanFileName } from '../domain/deviceFiles';
import {
    ApiError,
    badRequest,
    conflict,
    isForeignKeyViolation,
    isUniqueViolation,
    notFound,
    tooLarge,
} from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';

/** Where firmware files are kept: a directory of their own under FILES_DIR (the device-file sweeper leaves it alone). */
export const otaDir = (filesDir: string) => path.join(filesDir, 'ota');
/** Uploads in flight: renamed into otaDir once their row is inserted (same file system). */
const partDir = (filesDir: string) => path.join(otaDir(filesDir), '.part');
export const STORED_NAME = /^o_[0-9a-f]{32}$/;

export type OtaPackageRow = typeof otaPackages.$inferSelect;

export function packageView(r: OtaPackageRow & { productName?: string | null; productKey?: string }, tz: string) {
    return {
        id: r.id,
        name: r.name,
        productId: r.productId,
        productName: r.productName ?? null,
        productKey: r.productKey ?? null,
        module: r.module,
        version: r.version,
        sourceVersions: r.sourceVersions,
        signMethod: r.signMethod,
        fileName: r.fileName,
        size: Number(r.size),
        md5: r.md5,
        sha256: r.sha256,
        description: r.description ?? '',
        verified: r.verified,
        createTime: formatTime(r.createTime, tz),
    };
}

export interface PackageUpload {
    fields: Record<string, string | undefined>;
    /** The client's file name (cleaned here; its extension decides the type). */
    fileName: string;
    /** The size the client declares (Content-Length), when it does: refused early when over the limit. */
    declaredSize?: number;
    body: ReadableStream<Uint8Array> | null;
}

/** Counts, hashes (MD5 and SHA-256) and limits the bytes as they pass: the file is never held whole. */
function hashing(max: number, message: string) {
    const md5 = createHash('md5');
    const sha256 = createHash('sha256');
    let bytes = 0;
    const stream = new Transform({
        transform(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            if (bytes > max) return done(tooLarge(message));
            md5.update(chunk);
            sha256.update(chunk);
            done(null, chunk);
        },
    });
    return { stream, result: () => ({ bytes, md5: md5.digest('hex'), sha256: sha256.digest('hex') }) };
}

const extension = (name: string) => {
    const dot = name.lastIndexOf('.');
    return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
};

/**
 * 上传固件: the fields are checked first (nothing is read of the body before), then the body streams into a partial
 * file while its MD5 and SHA-256 are computed, then the row is inserted and the file moved into place inside one
 * transaction. A refusal, an interrupted body or a failed insert removes the partial file: nothing is left behind.
 */
export async function storePackage(db: Db, filesDir: string, maxBytes: number, upload: PackageUpload, tz: string) {
    const input = await validate(otaPackageSchema, upload.fields);
    const fileName = cleanFileName(upload.fileName);
    if (!fileName) throw badRequest(OTA_MESSAGES.fileRequired);
    if (!(OTA_EXTENSIONS as readonly string[]).includes(extension(fileName))) throw badRequest(OTA_MESSAGES.type);
    if ([...fileName].length > 100) throw badRequest('文件名不得超过100个字符');
    const limitText = OTA_MESSAGES.tooLarge(Math.round((maxBytes / 1024 / 1024) * 100) / 100);
    if (upload.declaredSize !== undefined && upload.declaredSize > maxBytes) throw tooLarge(limitText);
    const [product] = await db.select({ id: products.id }).from(products).where(eq(products.id, input.productId));
    if (!product) throw notFound('产品不存在');
    const [same] = await db
        .select({ id: otaPackages.id })
        .from(otaPackages)
        .where(
            and(
                eq(otaPackages.productId, input.productId),
                eq(otaPackages.module, input.module),
                eq(otaPackages.version, input.version),
            ),
        );
    if (same) throw conflict(OTA_MESSAGES.duplicate);
    if (!upload.body) throw badRequest(OTA_MESSAGES.empty);

    await mkdir(partDir(filesDir), { recursive: true });
    const storedName = `o_${randomBytes(16).toString('hex')}`;
    const part = path.join(partDir(filesDir), `${storedName}.part`);
    const target = path.join(otaDir(filesDir), storedName);
    const hash = hashing(maxBytes, limitText);
    const out = createWriteStream(part, { flags: 'wx' });
    try {
        await pipeline(Readable.fromWeb(upload.body as Parameters<typeof Readable.fromWeb>[0]), hash.stream, out).catch(
            (err: unknown) => {
                // The limit's own refusal, or the client's body ending early (a cut connection): nothing is kept either way.
                throw err instanceof ApiError || (err as { syscall?: string }).syscall
                    ? err
                    : badRequest('固件文件上传中断，请重新上传');
            },
        );
        const { bytes, md5, sha256 } = hash.result();
        if (bytes === 0) throw badRequest(OTA_MESSAGES.empty);
        const row = await db.transaction(async (tx) => {
            const [inserted] = await tx
                .insert(otaPackages)
                .values({
                    name: input.name,
                    productId: input.productId,
                    module: input.module,
                    version: input.version,
                    sourceVersions: splitVersions(input.sourceVersions),
                    signMethod: input.signMethod,
                    fileName,
                    storedName,
                    size: bytes,
                    md5,
                    sha256,
                    description: input.description || null,
                })
                .returning();
            await rename(part, target);
            return inserted;
        });
        return packageView(row, tz);
    } catch (err) {
        // A refusal in the first chunk can come before the file is even opened: the stream, destroyed while opening,
        // still creates the file and then closes it. Removed once it has closed, or an empty .part stayed behind.
        if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
        await rm(part, { force: true });
        await rm(target, { force: true });
        if (err instanceof ApiError) throw err;
        if (isUniqueViolation(err)) throw conflict(OTA_MESSAGES.duplicate);
        if (isForeignKeyViolation(err)) throw notFound('产品不存在');
        throw err;
    }
}

export async function packageById(db: Db, id: number): Promise<OtaPackageRow> {
    const [row] = await db.select().from(otaPackages).where(eq(otaPackages.id, id));
    if (!row) throw notFound(OTA_MESSAGES.notFound);
    return row;
}

/** The stored file of a package and its size now, or undefined when its bytes are gone. */
export async function packageFile(filesDir: string, row: Pick<OtaPackageRow, 'storedName'>) {
    if (!STORED_NAME.test(row.storedName)) return undefined;
    const file = path.join(otaDir(filesDir), row.storedName);
    try {
        return { file, size: (await stat(file)).size };
    } catch {
        return undefined;
    }
}

/** 删除: refused while a running batch uses the package; else the row (its batches with it), then its bytes. */
export async function deletePackage(db: Db, filesDir: string, id: number): Promise<void> {
    const row = await packageById(db, id);
    const [running] = await db
        .select({ id: otaBatches.id })
        .from(otaBatches)
        .where(and(eq(otaBatches.packageId, id), inArray(otaBatches.status, ['running'])));
    if (running) throw conflict(OTA_MESSAGES.inUse);
    await db.delete(otaPackages).where(eq(otaPackages.id, id));
    if (STORED_NAME.test(row.storedName)) await rm(path.join(otaDir(filesDir), row.storedName), { force: true });
}
