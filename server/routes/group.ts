import { Hono } from 'hono';
import { groupSaveSchema, groupUpdateSchema } from '../../schemas/group';
import type { AppEnv, Services } from '../deps';
import {
    childList,
    childNodes,
    createGroup,
    deleteGroup,
    getGroup,
    groupDetail,
    GROUP_REFUSALS,
    listGroups,
    menuTree,
    rootTree,
    SIBLING_NAME_INDEX,
    updateGroup,
} from '../domain/groups';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** PostgreSQL check_violation (23514): the level check of device_groups, should two moves race past ours. */
function isCheckViolation(err: unknown): boolean {
    let e: unknown = err;
    for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
        const pgErr = e as { code?: unknown; cause?: unknown };
        if (pgErr.code === '23514') return true;
        e = pgErr.cause;
    }
    return false;
}

/** The database's own guards, answered as the checks before them would have. */
function explain(err: unknown): unknown {
    if (isUniqueViolation(err, SIBLING_NAME_INDEX)) return conflict(GROUP_REFUSALS.nameTaken);
    if (isCheckViolation(err)) return badRequest(GROUP_REFUSALS.leafParent);
    return err;
}

/** /api/group: the three-level group tree (docs/platform-api.md "Groups"; returnCode '1111' family). */
export function groupRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const groupName = text(c.req.query('groupName')) || undefined;
        const projectCode = text(c.req.query('projectCode')) || undefined;
        return ok(c, await listGroups(db, tz, { groupName, projectCode, limit: size, offset }));
    });

    // userId is the platform's; every signed-in user sees every group here.
    app.get('/tree', async (c) => ok(c, { list: await rootTree(db, text(c.req.query('projectCode')) || undefined) }));

    app.get('/children', async (c) => {
        const parentId = positiveInt(c.req.query('parentId'), '缺少父分组ID');
        return ok(c, { list: await childNodes(db, parentId, tz) });
    });

    app.get('/menuTree', async (c) => ok(c, { list: await menuTree(db) }));

    app.post('/save', async (c) => {
        const input = await validate(groupSaveSchema, await readBody(c));
        let groupId: number;
        try {
            groupId = await db.transaction((tx) => createGroup(tx, input));
        } catch (err) {
            throw explain(err);
        }
        // SPEC: the platform's create succeeds on code 200, inside the family's returnCode envelope.
        return c.json({
            returnCode: '1111',
            returnMessage: 'success',
            code: 200,
            data: await getGroup(db, groupId, tz),
        });
    });

    app.post('/update', async (c) => {
        const body = await readBody(c);
        const input = await validate(groupUpdateSchema, body);
        try {
            await db.transaction((tx) =>
                updateGroup(tx, {
                    groupId: input.groupId,
                    name: input.name,
                    remark: 'remark' in body ? (input.remark ?? '') : undefined,
                    pid: input.pid,
                }),
            );
        } catch (err) {
            throw explain(err);
        }
        return ok(c, await getGroup(db, input.groupId, tz));
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        const raw = body.id ?? body.groupId ?? c.req.query('id') ?? c.req.query('groupId');
        const groupId = positiveInt(raw, '缺少分组ID');
        await db.transaction((tx) => deleteGroup(tx, groupId));
        return ok(c, null);
    });

    app.get('/detail', async (c) => {
        const groupId = positiveInt(c.req.query('groupId'), '缺少分组ID');
        return ok(c, await groupDetail(db, groupId, tz));
    });

    app.get('/childList', async (c) => {
        const parentId = positiveInt(c.req.query('parentId'), '缺少父分组ID');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const groupName = text(c.req.query('groupName')) || undefined;
        return ok(c, await childList(db, tz, { parentId, groupName, limit: size, offset }));
    });

    return app;
}
