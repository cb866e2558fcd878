import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { deleteTag, listTags, parseTagItems, saveTags, tagObject } from '../domain/tags';
import { ok } from '../http/envelope';
import { positiveInt, readBody } from '../http/input';

/** /api/tag: device tags (docs/platform-api.md "Device detail"), general family (code 200). */
export function tagRoutes(services: Services) {
    const { db } = services;
    const app = new Hono<AppEnv>();

    // get and list are the same call under the two names the SPEC gives.
    for (const path of ['/get', '/list']) {
        app.get(path, async (c) => {
            const object = await tagObject(db, c.req.query('type'), c.req.query('objectId'));
            return ok(c, { list: await listTags(db, object) });
        });
    }

    app.post('/save', async (c) => {
        const body = await readBody(c);
        const object = await tagObject(db, body.type, body.objectId);
        const items = await parseTagItems(body.items);
        const addr = typeof body.addr === 'string' ? body.addr.trim() : undefined;
        return ok(c, { list: await saveTags(db, { object, items, addr }) });
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        const object = await tagObject(db, body.type, body.objectId);
        await deleteTag(db, object, positiveInt(body.id, '缺少标签ID'));
        return ok(c, null);
    });

    return app;
}
