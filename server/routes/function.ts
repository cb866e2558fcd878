import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { FUNCTION_TYPES, thingFunctionSchema, type FunctionType } from '../../schemas/thingModel';
import { DATA_TYPE_OPTIONS, UNITS } from '../catalog';
import type { Db } from '../db/client';
import { categories, products, standardFunctions, thingFunctions } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import {
    exportThingModel,
    functionValues,
    parseThingModel,
    requireProductKey,
    toThingFunction,
} from '../domain/thingModel';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';

const IDENTIFIER_TAKEN = '标识符已存在';
const IDENTIFIER_UNIQUE = 'thing_functions_product_identifier_uq';

/** The category and its ancestors, nearest first: a leaf category also offers its parents' functions. */
async function categoryLineage(db: Db, categoryId: number): Promise<number[]> {
    const ids: number[] = [];
    for (let id: number | null = categoryId; id !== null && ids.length < 10;) {
        const [row] = await db
            .select({ id: categories.id, parentId: categories.parentId })
            .from(categories)
            .where(eq(categories.id, id));
        if (!row) break;
        ids.push(row.id);
        id = row.parentId;
    }
    return ids;
}

/** /api/function: the thing model (物模型) of a product. */
export function functionRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/list', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '缺少产品ID');
        const type = c.req.query('type') || undefined;
        if (type !== undefined && !FUNCTION_TYPES.includes(type as FunctionType)) throw badRequest('请选择功能类型');
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        await requireProductKey(db, productId);
        const where = and(eq(thingFunctions.productId, productId), type ? eq(thingFunctions.type, type) : undefined);
        const rows = await db
            .select()
            .from(thingFunctions)
            .where(where)
            .orderBy(asc(thingFunctions.id))
            .limit(size)
            .offset(offset);
        const [{ total }] = await db
            .select({ total: sql<number>`count(*)::int` })
            .from(thingFunctions)
            .where(where);
        return ok(c, { records: rows.map((r) => toThingFunction(r, tz)), total: Number(total) });
    });

    app.get('/get', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少功能ID');
        const [row] = await db.select().from(thingFunctions).where(eq(thingFunctions.id, id));
        if (!row) throw notFound('功能不存在');
        return ok(c, toThingFunction(row, tz));
    });

    app.post('/save', async (c) => {
        const body = await readBody(c);
        const input = await validate(thingFunctionSchema, body);
        await requireProductKey(db, input.productId);
        if (input.id !== undefined) {
            const [current] = await db
                .select({ id: thingFunctions.id })
                .from(thingFunctions)
                .where(and(eq(thingFunctions.id, input.id), eq(thingFunctions.productId, input.productId)));
            if (!current) throw notFound('功能不存在');
        }
        const [clash] = await db
            .select({ id: thingFunctions.id })
            .from(thingFunctions)
            .where(
                and(
                    eq(thingFunctions.productId, input.productId),
                    eq(thingFunctions.identifier, input.identifier),
                    input.id !== undefined ? ne(thingFunctions.id, input.id) : undefined,
                ),
            );
        if (clash) throw conflict(IDENTIFIER_TAKEN);
        const values = functionValues(input, body.standard === true);
        try {
            const [row] =
                input.id === undefined
                    ? await db.insert(thingFunctions).values(values).returning()
                    : await db.update(thingFunctions).set(values).where(eq(thingFunctions.id, input.id)).returning();
            return ok(c, toThingFunction(row, tz));
        } catch (err) {
            if (isUniqueViolation(err, IDENTIFIER_UNIQUE)) throw conflict(IDENTIFIER_TAKEN);
            throw err;
        }
    });

    app.delete('/delete', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少功能ID');
        const deleted = await db
            .delete(thingFunctions)
            .where(eq(thingFunctions.id, id))
            .returning({ id: thingFunctions.id });
        if (deleted.length === 0) throw notFound('功能不存在');
        return ok(c, null);
    });

    app.get('/data-types', (c) => ok(c, DATA_TYPE_OPTIONS));

    app.get('/units', (c) => ok(c, UNITS));

    app.get('/standard', async (c) => {
        const categoryId = positiveInt(c.req.query('categoryId'), '请选择所属分类');
        const lineage = await categoryLineage(db, categoryId);
        if (lineage.length === 0) throw notFound('所属分类不存在');
        const rows = await db
            .select()
            .from(standardFunctions)
            .where(inArray(standardFunctions.categoryId, lineage))
            .orderBy(asc(standardFunctions.id));
        const byIdentifier = new Map<string, Record<string, unknown>>();
        // Nearest category wins when a parent defines the same identifier.
        for (const categoryIdInLine of lineage) {
            for (const r of rows.filter((row) => row.categoryId === categoryIdInLine)) {
                const def = r.definition as Record<string, unknown>;
                const key = String(def.identifier);
                if (!byIdentifier.has(key)) byIdentifier.set(key, { ...def, standard: true });
            }
        }
        return ok(c, [...byIdentifier.values()]);
    });

    app.post('/import', async (c) => {
        const body = await readBody(c);
        const productId = positiveInt(body.productId, '缺少产品ID');
        await requireProductKey(db, productId);
        const inputs = await parseThingModel(productId, body.thingModel);
        await db.transaction(async (tx) => {
            // Row lock on the product: on PostgreSQL two imports of one product would otherwise each delete
            // the old rows and both insert, leaving a mix. (PGlite runs transactions one at a time anyway.)
            const locked = await tx
                .select({ id: products.id })
                .from(products)
                .where(eq(products.id, productId))
                .for('update');
            if (locked.length === 0) throw notFound('产品不存在');
            await tx.delete(thingFunctions).where(eq(thingFunctions.productId, productId));
            if (inputs.length > 0) await tx.insert(thingFunctions).values(inputs.map((i) => functionValues(i, false)));
        });
        return ok(c, await exportThingModel(db, productId));
    });

    app.get('/export', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '缺少产品ID');
        return ok(c, await exportThingModel(db, productId));
    });

    return app;
}
