import dayjs from 'dayjs';
import { asc, count, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { projectSaveSchema, projectUpdateSchema, sceneSaveSchema } from '../../schemas/project';
import type { AppEnv, Services } from '../deps';
import { projects, projectUsers, scenes } from '../db/schema';
import { forgetSessions } from '../sso/sessions';
import {
    createProject,
    deleteProjects,
    deleteScene,
    listProjects,
    listScenes,
    projectDetail,
    projectRow,
    saveScene,
    updateProject,
} from '../domain/projects';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { idList, paging, positiveInt, readBody, validate } from '../http/input';
import { bindDevices, selection } from '../domain/deviceProject';
import '../http/time';
import { inScope, scopeByProjectId } from '../rights/scope';

/** At most this many projects in one delete. */
const MAX_DELETE = 100;

/** /api/project: pickers, the project list and its form, scenes, and binding devices (docs/platform-api.md "Projects"). */
export function projectRoutes(services: Services) {
    const { db, config } = services;
    const tz = config.timeZone;
    const app = new Hono<AppEnv>();

    const options = () =>
        db
            .select({ id: projects.id, code: projects.code, projectName: projects.name, sceneName: scenes.name })
            .from(projects)
            .innerJoin(scenes, eq(scenes.id, projects.classId))
            .where(scopeByProjectId(projects.id))
            .orderBy(asc(projects.id));

    app.get('/listAll', async (c) => ok(c, { list: await options() }));
    // A user who is not an administrator picks among the projects they are staff of (docs/roles.md).
    app.get('/select', async (c) => ok(c, { list: await options() }));

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('page'), c.req.query('size'));
        const name = c.req.query('name')?.trim() || undefined;
        const rawClass = c.req.query('classId')?.trim();
        const classId = rawClass ? positiveInt(rawClass, '项目分类ID必须是正整数') : undefined;
        if (name !== undefined && name.length > 100) throw badRequest('项目名称不得超过100个字符');
        return ok(c, await listProjects(db, { name, classId }, size, offset, tz));
    });

    app.get('/get', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少项目ID');
        if (!inScope(id)) throw notFound('项目不存在');
        return ok(c, await projectDetail(db, id, tz));
    });

    app.get('/selectCount', async (c) => {
        const [row] = await db.select({ n: count() }).from(projects).where(scopeByProjectId(projects.id));
        return ok(c, { count: Number(row.n) });
    });

    app.post('/save', async (c) => {
        const input = await validate(projectSaveSchema, await readBody(c));
        const id = await createProject(db, input, dayjs(services.now()).tz(tz).year());
        // Whoever creates a project without being an administrator becomes its staff, so it stays in their scope.
        const user = c.get('user');
        if (!user.admin) {
            await db.insert(projectUsers).values({ projectId: id, userId: user.id }).onConflictDoNothing();
            forgetSessions(db, user.id);
        }
        return ok(c, await projectRow(db, id, tz));
    });

    app.put('/update', async (c) => {
        const input = await validate(projectUpdateSchema, await readBody(c));
        await updateProject(db, input);
        return ok(c, await projectRow(db, input.id, tz));
    });

    app.delete('/delete', async (c) => {
        const ids = idList(c.req.queries('ids') ?? c.req.queries('ids[]'), '项目ID必须是正整数');
        if (ids.length === 0) throw badRequest('请选择要删除的项目');
        if (ids.length > MAX_DELETE) throw badRequest(`一次最多删除${MAX_DELETE}个项目`);
        const answer = await deleteProjects(db, ids);
        forgetSessions(db);
        return ok(c, answer);
    });

    app.get('/sceneList', async (c) => ok(c, { list: await listScenes(db) }));

    app.post('/scene/save', async (c) => {
        const input = await validate(sceneSaveSchema, await readBody(c));
        return ok(c, await saveScene(db, input));
    });

    app.delete('/scene/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少场景ID');
        await deleteScene(db, id);
        return ok(c, null);
    });

    app.get('/associateDevice', async (c) => {
        const ids = selection(c.req.queries('deviceId') ?? c.req.queries('deviceId[]'), '请选择需要关联项目的设备');
        return ok(c, { count: await bindDevices(db, c.req.query('projectId')?.trim() ?? '', ids) });
    });

    return app;
}
