import { asc, eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { projects, projectUsers, users } from '../db/schema';
import { requireProjectCode } from '../domain/projects';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { positiveInt, readBody } from '../http/input';
import { forgetSessions } from '../sso/sessions';

/** At most this many staff assignments in one call. */
const MAX_ASSIGNMENTS = 1000;

interface Assignment {
    projectCode: string;
    userId: number;
}

/** `list`: a JSON array of { projectCode, userId } (a form field holding JSON, or the array itself in a JSON body). */
function assignments(raw: unknown): Assignment[] {
    let value = raw;
    if (typeof raw === 'string') {
        try {
            value = JSON.parse(raw);
        } catch {
            throw badRequest('人员列表格式错误');
        }
    }
    if (value === undefined || value === '') throw badRequest('请选择要添加的人员');
    if (!Array.isArray(value)) throw badRequest('人员列表格式错误');
    if (value.length === 0) throw badRequest('请选择要添加的人员');
    if (value.length > MAX_ASSIGNMENTS) throw badRequest(`一次最多添加${MAX_ASSIGNMENTS}名人员`);
    return value.map((item) => {
        const { projectCode, userId } = (item ?? {}) as Record<string, unknown>;
        if (typeof projectCode !== 'string' || projectCode.trim() === '') throw badRequest('缺少项目编码');
        return { projectCode: projectCode.trim(), userId: positiveInt(userId, '用户ID必须是正整数') };
    });
}

/** /api/project-user: project staff (docs/platform-api.md "Projects"). */
export function projectUserRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/getUserList', async (c) => {
        const code = c.req.query('projectCode')?.trim();
        if (!code) throw badRequest('缺少项目编码');
        const project = await requireProjectCode(db, code);
        const list = await db
            .select({
                id: projectUsers.id,
                userId: users.id,
                username: users.displayName,
                loginName: users.username,
                mobile: users.mobile,
            })
            .from(projectUsers)
            .innerJoin(users, eq(users.id, projectUsers.userId))
            .where(eq(projectUsers.projectId, project.id))
            .orderBy(asc(projectUsers.id));
        return ok(c, { list });
    });

    // Users already on the project are skipped; unknown projects or users refuse the whole list.
    app.post('/addUser', async (c) => {
        const list = assignments((await readBody(c)).list);
        const count = await db.transaction(async (tx) => {
            const codes = [...new Set(list.map((a) => a.projectCode))];
            const found = await tx
                .select({ id: projects.id, code: projects.code })
                .from(projects)
                .where(inArray(projects.code, codes));
            if (found.length < codes.length) throw notFound('项目不存在');
            const userIds = [...new Set(list.map((a) => a.userId))];
            const known = await tx.select({ id: users.id }).from(users).where(inArray(users.id, userIds));
            if (known.length < userIds.length) throw notFound('用户不存在');
            const projectId = new Map(found.map((p) => [p.code, p.id]));
            const inserted = await tx
                .insert(projectUsers)
                .values(list.map((a) => ({ projectId: projectId.get(a.projectCode)!, userId: a.userId })))
                .onConflictDoNothing()
                .returning({ id: projectUsers.id });
            return inserted.length;
        });
        // Staff changes move the users' project scope at once (server/rights/scope.ts).
        for (const userId of new Set(list.map((a) => a.userId))) forgetSessions(db, userId);
        return ok(c, { count });
    });

    app.get('/removeUser', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少人员ID');
        const removed = await db
            .delete(projectUsers)
            .where(eq(projectUsers.id, id))
            .returning({ id: projectUsers.id, userId: projectUsers.userId });
        if (removed.length === 0) throw notFound('项目人员不存在');
        forgetSessions(db, removed[0].userId);
        return ok(c, null);
    });

    return app;
}
