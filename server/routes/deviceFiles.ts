import { Hono } from 'hono';
import { limitBody } from '../http/guard';
import { FILE_MAX_BYTES, FILE_MESSAGES } from '../../schemas/deviceFile';
import type { AppEnv, Services } from '../deps';
import { asciiFallback, deleteFile, listFiles, openFile, storeFile } from '../domain/deviceFiles';
import { attachment } from '../http/download';
import { fail, ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { refuseOutOfScope } from '../rights/references';
import { paging, parseForm, positiveInt, readBody } from '../http/input';

/** Multipart framing and the deviceId field around the file. */
const MULTIPART_ALLOWANCE = 64 * 1024;

/** /api/device/file: files attached to a device (docs/platform-api.md "Device detail"), device family (code 0). */
export function deviceFileRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    app.get('/list', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        return ok(c, await listFiles(db, deviceId, size, offset, tz));
    });

    app.post(
        '/upload',
        // The app's general 10 MB limit skips this path (app.ts). This one counts the bytes as they arrive, so a
        // body over it is refused before it is read whole, whatever Content-Length says.
        limitBody({
            maxSize: FILE_MAX_BYTES + MULTIPART_ALLOWANCE,
            onError: (c) => fail(c, 413, FILE_MESSAGES.tooLarge),
        }),
        async (c) => {
            if (!(c.req.header('content-type') ?? '').includes('multipart/form-data')) {
                throw badRequest(FILE_MESSAGES.required);
            }
            const form = await parseForm(c);
            await refuseOutOfScope(db, form);
            const deviceId = positiveInt(form.deviceId, '缺少设备ID');
            const file = form.file;
            if (!(file instanceof File)) throw badRequest(FILE_MESSAGES.required);
            const stored = await storeFile(
                db,
                config.filesDir,
                { deviceId, name: file.name, type: file.type, size: file.size, stream: () => file.stream() },
                tz,
            );
            return ok(c, stored);
        },
    );

    app.get('/download', async (c) => {
        const fileId = positiveInt(c.req.query('fileId'), '缺少文件ID');
        const file = await openFile(db, config.filesDir, fileId);
        return c.body(file.stream(), 200, {
            // Never rendered inline, whatever the bytes are: an uploaded HTML or SVG page must not run on this origin.
            'content-type': 'application/octet-stream',
            'x-content-type-options': 'nosniff',
            'content-security-policy': "default-src 'none'; sandbox",
            'content-disposition': attachment(file.fileName, asciiFallback(file.fileName)),
            'content-length': String(file.size),
            'cache-control': 'private, no-store',
        });
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        await deleteFile(db, config.filesDir, positiveInt(body.fileId, '缺少文件ID'));
        return ok(c, null);
    });

    return app;
}
