import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { asc, eq, getTableColumns } from 'drizzle-orm';
import { Hono } from 'hono';
import { edgeDriverSchema } from '../../schemas/edge';
import { edgeDrivers } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { asciiFallback, cleanFileName } from '../domain/deviceFiles';
import { DRIVER_NOT_FOUND, driverUsedBy, driverVersionRow, parseJson } from '../domain/edgeRecords';
import { attachment } from '../http/download';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { parseForm, positiveInt, validate } from '../http/input';

export const PACKAGE_REQUIRED = '请选择驱动包文件';
export const PACKAGE_EMPTY = '驱动包文件为空';
const PACKAGE_NOT_FOUND = '驱动包不存在';

/** A file part of a parsed form (by shape: in-process tests under jsdom hand over another realm's File). */
const isFile = (v: unknown): v is File =>
    typeof v === 'object' && v !== null && typeof (v as File).arrayBuffer === 'function' && 'name' in v;

/** Where driver packages are kept: a directory of their own beside device files (which the file sweeper owns). */
export const packageDir = (filesDir: string) => path.join(filesDir, 'edge-drivers');

/**
 * Driver packages (/api/edge/driver/upload, versions, download): a version of a driver is uploaded as one multipart
 * form (name, protocol, version, description, configSchema and the package file); its size and SHA-256 are kept
 * and answered, so a gateway can check what it downloads. The general 10 MB body limit applies. Refused input
 * stores nothing: the file is written only after every field passed, and removed if the row cannot be inserted.
 */
export function edgeDriverFileRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();
    const versionRow = (r: Parameters<typeof driverVersionRow>[0]) => driverVersionRow(r, tz);

    app.post('/upload', async (c) => {
        if (!(c.req.header('content-type') ?? '').includes('multipart/form-data')) throw badRequest(PACKAGE_REQUIRED);
        const form = await parseForm(c);
        const input = await validate(edgeDriverSchema, form);
        const file = form.file;
        if (!isFile(file)) throw badRequest(PACKAGE_REQUIRED);
        const bytes = Buffer.from(await file.arrayBuffer());
        if (bytes.length === 0) throw badRequest(PACKAGE_EMPTY);
        const fileName = cleanFileName(file.name) || 'driver.bin';
        const storedName = `d_${randomBytes(16).toString('hex')}`;
        const dir = packageDir(config.filesDir);
        await mkdir(dir, { recursive: true });
        const target = path.join(dir, storedName);
        await writeFile(target, bytes, { flag: 'wx' });
        try {
            const [row] = await db
                .insert(edgeDrivers)
                .values({
                    name: input.name,
                    version: input.version,
                    protocol: input.protocol,
                    description: input.description || null,
                    configSchema: parseJson(input.configSchema),
                    fileName,
                    fileSize: bytes.length,
                    fileSha256: createHash('sha256').update(bytes).digest('hex'),
                    storedName,
                })
                .returning();
            return ok(c, versionRow(row));
        } catch (err) {
            await rm(target, { force: true });
            if (isUniqueViolation(err)) throw conflict('该驱动的此版本已存在');
            throw err;
        }
    });

    /** The versions of one driver name, oldest first, with their package's size and SHA-256. */
    app.get('/versions', async (c) => {
        const name = c.req.query('name')?.trim();
        if (!name) throw badRequest('请输入驱动名称');
        const rows = await db
            .select({ ...getTableColumns(edgeDrivers), instanceCount: driverUsedBy })
            .from(edgeDrivers)
            .where(eq(edgeDrivers.name, name))
            .orderBy(asc(edgeDrivers.id));
        return ok(c, rows.map(versionRow));
    });

    app.get('/download', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少驱动ID');
        const [row] = await db.select().from(edgeDrivers).where(eq(edgeDrivers.id, id));
        if (!row) throw notFound(DRIVER_NOT_FOUND);
        if (!row.storedName) throw notFound(PACKAGE_NOT_FOUND);
        const file = path.join(packageDir(config.filesDir), row.storedName);
        const stream = createReadStream(file);
        await new Promise<void>((resolve, reject) => {
            stream.once('open', () => resolve());
            stream.once('error', () => reject(notFound(PACKAGE_NOT_FOUND)));
        });
        const name = row.fileName ?? 'driver.bin';
        return c.body(Readable.toWeb(stream) as ReadableStream, 200, {
            'content-type': 'application/octet-stream',
            'x-content-type-options': 'nosniff',
            'content-security-policy': "default-src 'none'; sandbox",
            'content-disposition': attachment(name, asciiFallback(name)),
            'content-length': String(row.fileSize ?? 0),
            'cache-control': 'private, no-store',
            ...(row.fileSha256 ? { 'x-sha256': row.fileSha256 } : {}),
        });
    });

    return app;
}
