import { and, desc, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { productCreateSchema, productUpdateSchema } from '../../schemas/product';
import { CONNECTION_METHODS, GATEWAY_PROTOCOLS } from '../catalog';
import { categories, products, projects } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { deviceCountOfProduct } from '../domain/devices';
import {
    categoryTree,
    getProduct,
    listProducts,
    newProductKey,
    productNameTaken,
    productScopeSql,
} from '../domain/products';
import { exportThingModel } from '../domain/thingModel';
import { ok } from '../http/envelope';
import { badRequest, conflict, isForeignKeyViolation, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, validate } from '../http/input';

const NAME_TAKEN = '产品名称已存在';

/** /api/product: the product family (general envelope, code 200). */
export function productRoutes({ db, config }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const productName = c.req.query('productName')?.trim() || undefined;
        return ok(c, await listProducts(db, tz, { productName, limit: size, offset }));
    });

    app.post('/save', async (c) => {
        const input = await validate(productCreateSchema, await readBody(c));
        // A gateway is not itself behind a gateway (SPEC: choosing gateway resets gatewayType to 0).
        const gatewayType = input.nodeType === 1 ? 0 : input.gatewayType;
        const networks = gatewayType === 1 ? GATEWAY_PROTOCOLS : CONNECTION_METHODS;
        if (!networks.some((n) => n.id === input.networkType)) throw badRequest('请选择连网方式');
        const [category] = await db.select().from(categories).where(eq(categories.id, input.categoryId));
        if (!category) throw badRequest('所属分类不存在');
        const projectCode = input.projectCode || null;
        if (projectCode) {
            const [project] = await db.select().from(projects).where(eq(projects.code, projectCode));
            if (!project) throw badRequest('所属项目不存在');
        }
        if (await productNameTaken(db, input.productName)) throw conflict(NAME_TAKEN);

        for (let attempt = 0; ; attempt++) {
            try {
                const [row] = await db
                    .insert(products)
                    .values({
                        productKey: newProductKey(),
                        productName: input.productName,
                        nodeType: input.nodeType,
                        gatewayType,
                        categoryId: input.categoryId,
                        networkType: input.networkType,
                        dataType: input.dataType,
                        projectCode,
                        remark: input.remark || null,
                    })
                    .returning({ id: products.id });
                return ok(c, await getProduct(db, tz, row.id));
            } catch (err) {
                if (isUniqueViolation(err, 'products_product_name_unique')) throw conflict(NAME_TAKEN);
                // 62^11 keys make a clash unlikely; a clash just draws again.
                if (isUniqueViolation(err, 'products_product_key_unique') && attempt < 5) continue;
                throw err;
            }
        }
    });

    app.post('/update', async (c) => {
        const input = await validate(productUpdateSchema, await readBody(c));
        await getProduct(db, tz, input.productId);
        if (await productNameTaken(db, input.productName, input.productId)) throw conflict(NAME_TAKEN);
        try {
            await db
                .update(products)
                .set({ productName: input.productName, remark: input.remark || null })
                .where(eq(products.id, input.productId));
        } catch (err) {
            if (isUniqueViolation(err, 'products_product_name_unique')) throw conflict(NAME_TAKEN);
            throw err;
        }
        return ok(c, await getProduct(db, tz, input.productId));
    });

    app.delete('/', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '缺少产品ID');
        const stillHas = async () => {
            const n = await deviceCountOfProduct(db, productId);
            return n > 0 ? conflict(`该产品下还有${n}个设备，请先删除设备`) : undefined;
        };
        const refusal = await stillHas();
        if (refusal) throw refusal;
        let deleted: Array<{ id: number }>;
        try {
            deleted = await db.delete(products).where(eq(products.id, productId)).returning({ id: products.id });
        } catch (err) {
            // A device added between the count and the delete: the foreign key stops it; say so the same way.
            if (isForeignKeyViolation(err)) throw (await stillHas()) ?? err;
            throw err;
        }
        if (deleted.length === 0) throw notFound('产品不存在');
        return ok(c, null);
    });

    app.get('/detail', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '缺少产品ID');
        return ok(c, await getProduct(db, tz, productId));
    });

    // 一型一密: the ProductSecret, shown behind the product page's 查看 (product.edit, openapi.yaml x-right).
    app.get('/secret', async (c) => {
        const productId = positiveInt(c.req.query('productId'), '缺少产品ID');
        const [row] = await db
            .select({ productKey: products.productKey, productSecret: products.productSecret })
            .from(products)
            .where(and(eq(products.id, productId), productScopeSql()));
        if (!row) throw notFound('产品不存在');
        return ok(c, row);
    });

    // The 动态注册 and 免预注册 switches: either or both, 'true' or 'false'.
    app.post('/dynamicRegister', async (c) => {
        const body = await readBody(c);
        const productId = positiveInt(body.productId, '缺少产品ID');
        const change: { dynamicRegister?: boolean; noPreRegister?: boolean } = {};
        for (const key of ['dynamicRegister', 'noPreRegister'] as const) {
            const raw = body[key];
            if (raw === undefined || raw === '') continue;
            if (raw !== true && raw !== false && raw !== 'true' && raw !== 'false')
                throw badRequest(`${key} 只能是 true 或 false`);
            change[key] = raw === true || raw === 'true';
        }
        if (Object.keys(change).length === 0) throw badRequest('请指定 dynamicRegister 或 noPreRegister');
        await getProduct(db, tz, productId);
        await db.update(products).set(change).where(eq(products.id, productId));
        return ok(c, await getProduct(db, tz, productId));
    });

    app.get('/list-category', async (c) => ok(c, await categoryTree(db)));

    app.get('/list-network', (c) => {
        const type = c.req.query('type') ?? '0';
        if (type !== '0' && type !== '1') throw badRequest('type 只能是 0 或 1');
        return ok(c, type === '0' ? CONNECTION_METHODS : GATEWAY_PROTOCOLS);
    });

    app.get('/list-product', async (c) => {
        // ?orderBy=active: the products whose devices reported last come first (the message log opens on one that has
        // messages), the silent ones after them, newest first.
        const orderBy = c.req.query('orderBy');
        if (orderBy !== undefined && orderBy !== 'active') throw badRequest('orderBy 只能是 active');
        const lastReport = sql`(SELECT max(l.ts) FROM device_latest l JOIN devices d ON d.id = l.device_id
            WHERE d.product_id = ${products.id})`;
        const list = await db
            .select({
                productId: products.id,
                productKey: products.productKey,
                productName: products.productName,
                nodeType: products.nodeType,
            })
            .from(products)
            .where(productScopeSql())
            .orderBy(
                ...(orderBy === 'active' ? [sql`${lastReport} DESC NULLS LAST`] : []),
                desc(products.createTime),
                desc(products.id),
            );
        return ok(c, { list });
    });

    app.post('/GetThingModel', async (c) => {
        const productId = positiveInt((await readBody(c)).productId, '缺少产品ID');
        return ok(c, await exportThingModel(db, productId));
    });

    return app;
}
