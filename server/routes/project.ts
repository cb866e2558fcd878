import { asc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { projects, scenes } from '../db/schema';
import { ok } from '../http/envelope';

/** /api/project: the pickers (the project screens come with a later issue). */
export function projectRoutes(services: Services) {
    const app = new Hono<AppEnv>();

    const options = () =>
        services.db
            .select({ id: projects.id, code: projects.code, projectName: projects.name, sceneName: scenes.name })
            .from(projects)
            .innerJoin(scenes, eq(scenes.id, projects.classId))
            .orderBy(asc(projects.id));

    app.get('/listAll', async (c) => ok(c, { list: await options() }));
    // Every signed-in user may pick every project until project staff (a later issue) narrows it.
    app.get('/select', async (c) => ok(c, { list: await options() }));

    return app;
}
