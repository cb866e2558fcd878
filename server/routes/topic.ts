import { and, asc, eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import { products, thingFunctions } from '../db/schema';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { topicClasses } from '../mqtt/topicCatalog';

/** /api/topic: topic lists of a product (and of one device when deviceName is given). */
export function topicRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();

    app.get('/list', async (c) => {
        const productKey = c.req.query('productKey')?.trim();
        if (!productKey) throw badRequest('缺少productKey');
        const deviceName = c.req.query('deviceName')?.trim() || '${deviceName}';
        const [product] = await db
            .select({ id: products.id, nodeType: products.nodeType, dataType: products.dataType })
            .from(products)
            .where(eq(products.productKey, productKey));
        if (!product) throw notFound('产品不存在');
        const functions = await db
            .select({ type: thingFunctions.type, identifier: thingFunctions.identifier })
            .from(thingFunctions)
            .where(and(eq(thingFunctions.productId, product.id), inArray(thingFunctions.type, ['event', 'service'])))
            .orderBy(asc(thingFunctions.id));
        const ids = (type: string) => functions.filter((f) => f.type === type).map((f) => f.identifier);
        const classes = topicClasses(
            { productKey, nodeType: product.nodeType, passthrough: product.dataType === 1 },
            deviceName,
            ids('event'),
            ids('service'),
        );
        return ok(c, classes);
    });

    return app;
}
