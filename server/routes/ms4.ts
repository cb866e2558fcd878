import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { readBody } from '../http/input';
import { updateRemark } from './deviceEdit';

/** /ms4: the legacy device edit, answering returnCode 0 (1 with returnMessage on failure). */
export function ms4Routes({ db }: Services) {
    const app = new Hono<AppEnv>();
    app.post('/device/update', async (c) => {
        await updateRemark(db, await readBody(c));
        return ok(c, null);
    });
    return app;
}
