import { rm } from 'node:fs/promises';
import path from 'node:path';
import { asc, desc, eq, getTableColumns, ilike } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { edgeDriverSchema } from '../../schemas/edge';
import { edgeDrivers } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import {
    DRIVER_NOT_FOUND,
    countWhere,
    driverRow,
    driverUsedBy,
    escapeLike,
    optionalId,
    pageOf,
    parseJson,
} from '../domain/edgeRecords';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { positiveInt, readBody, validate } from '../http/input';
import { edgeDriverFileRoutes, packageDir } from './edgeDriverFiles';

/** /api/edge/driver: edge drivers, versioned packages for a protocol with a configuration schema. */

type C = Context<AppEnv>;

export async function listDrivers(s: Services, c: C) {
    const { size, offset } = pageOf(c);
    const name = c.req.query('name')?.trim();
    const where = name ? ilike(edgeDrivers.name, `%${escapeLike(name)}%`) : undefined;
    const rows = await s.db
        .select({ ...getTableColumns(edgeDrivers), instanceCount: driverUsedBy })
        .from(edgeDrivers)
        .where(where)
        .orderBy(desc(edgeDrivers.id))
        .limit(size)
        .offset(offset);
    const total = await countWhere(s.db, edgeDrivers, where);
    return ok(c, { records: rows.map((r) => driverRow(r, s.config.timeZone)), total });
}

export async function driverOptions(s: Services, c: C) {
    const rows = await s.db.select().from(edgeDrivers).orderBy(asc(edgeDrivers.name), desc(edgeDrivers.id));
    return ok(
        c,
        rows.map((r) => ({ id: r.id, label: `${r.name} ${r.version}`, protocol: r.protocol })),
    );
}

export async function saveDriver(s: Services, c: C) {
    const body = await readBody(c);
    const input = await validate(edgeDriverSchema, body);
    const id = optionalId(body.id, '驱动ID必须是正整数');
    const values = {
        name: input.name,
        version: input.version,
        protocol: input.protocol,
        description: input.description || null,
        configSchema: parseJson(input.configSchema),
    };
    try {
        const [row] =
            id === undefined
                ? await s.db.insert(edgeDrivers).values(values).returning()
                : await s.db.update(edgeDrivers).set(values).where(eq(edgeDrivers.id, id)).returning();
        if (!row) throw notFound(DRIVER_NOT_FOUND);
        return ok(c, driverRow(row, s.config.timeZone));
    } catch (err) {
        if (isUniqueViolation(err)) throw conflict('该驱动的此版本已存在');
        throw err;
    }
}

export async function deleteDriver(s: Services, c: C) {
    const id = positiveInt(c.req.query('id'), '缺少驱动ID');
    const [row] = await s.db
        .select({ n: driverUsedBy, storedName: edgeDrivers.storedName })
        .from(edgeDrivers)
        .where(eq(edgeDrivers.id, id));
    if (!row) throw notFound(DRIVER_NOT_FOUND);
    if (Number(row.n) > 0) throw badRequest(`该驱动正被${row.n}个边缘实例使用，不能删除`);
    await s.db.delete(edgeDrivers).where(eq(edgeDrivers.id, id));
    // The package goes with its version (after the row: a failed delete keeps both).
    if (row.storedName) await rm(path.join(packageDir(s.config.filesDir), row.storedName), { force: true });
    return ok(c, null);
}

export function edgeDriverRoutes(s: Services) {
    return new Hono<AppEnv>()
        .route('/', edgeDriverFileRoutes(s))
        .get('/list', (c) => listDrivers(s, c))
        .get('/options', (c) => driverOptions(s, c))
        .post('/save', (c) => saveDriver(s, c))
        .delete('/delete', (c) => deleteDriver(s, c));
}
