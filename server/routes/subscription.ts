import { clusterShares } from '../cluster/figures';
import { randomBytes } from 'node:crypto';
import { and, asc, count, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { consumerGroupSchema, SUBSCRIPTION_MESSAGES as M, subscriptionSchema } from '../../schemas/subscription';
import type { AppEnv, Services } from '../deps';
import { accessKeys } from '../db/schema';
import {
    backlogOf,
    createSubscription,
    deleteConsumerGroup,
    deleteSubscription,
    deviceSubscriptions,
    getConsumerGroup,
    getSubscription,
    GROUP_NAME_INDEX,
    listConsumerGroups,
    listSubscriptions,
    saveConsumerGroup,
    subscribableProducts,
    SUBSCRIPTION_PRODUCT_INDEX,
    subscriptionsOfGroup,
    updateSubscription,
} from '../domain/subscriptions';
import { ok } from '../http/envelope';
import { badRequest, conflict, isUniqueViolation, notFound } from '../http/errors';
import { paging, positiveInt, readBody, readListBody, validate } from '../http/input';
import { formatTime } from '../http/time';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const single = (v: unknown) => (Array.isArray(v) ? v[0] : v);

/** /api/subscription: server-side subscriptions, one per product (docs/platform-api.md "Server subscription"). */
export function subscriptionRoutes({ db, config, amqp }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const productRaw = c.req.query('productId');
        const productId = productRaw ? positiveInt(productRaw, '产品ID必须是正整数') : undefined;
        const projectCode = text(c.req.query('projectCode')) || undefined;
        return ok(c, await listSubscriptions(db, tz, { productId, projectCode, limit: size, offset }));
    });

    app.get('/products', async (c) => {
        const projectCode = text(c.req.query('projectCode')) || undefined;
        return ok(c, await subscribableProducts(db, projectCode));
    });

    app.get('/device', async (c) => {
        const deviceId = positiveInt(c.req.query('deviceId'), '缺少设备ID');
        return ok(c, await deviceSubscriptions(db, deviceId, tz));
    });

    app.get('/detail', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少订阅ID');
        const sub = await getSubscription(db, id, tz);
        return ok(c, {
            sub,
            consumerGroup: { list: sub.groups.map((g) => ({ queueId: g.id, queueName: g.name })) },
        });
    });

    const explain = (err: unknown) =>
        isUniqueViolation(err, SUBSCRIPTION_PRODUCT_INDEX) ? conflict(M.productSubscribed) : err;

    app.post('/save', async (c) => {
        const body = await readListBody(c);
        const input = await validate(subscriptionSchema, {
            ...body,
            projectCode: single(body.projectCode),
            productKey: single(body.productKey),
        });
        let id: number;
        try {
            id = await db.transaction((tx) =>
                createSubscription(tx, {
                    projectCode: input.projectCode,
                    productKey: input.productKey,
                    group: input.group,
                    message: input.message,
                }),
            );
        } catch (err) {
            throw explain(err);
        }
        void amqp?.invalidate();
        return c.json({ code: 200, msg: '添加成功', data: await getSubscription(db, id, tz) });
    });

    app.post('/edit', async (c) => {
        const body = await readListBody(c);
        const id = positiveInt(single(body.id), '缺少订阅ID');
        const input = await validate(subscriptionSchema, { ...body, productKey: single(body.productKey) });
        try {
            await db.transaction((tx) =>
                updateSubscription(tx, id, {
                    productKey: input.productKey,
                    group: input.group,
                    message: input.message,
                }),
            );
        } catch (err) {
            throw explain(err);
        }
        void amqp?.invalidate();
        return c.json({ code: 200, msg: '修改成功', data: await getSubscription(db, id, tz) });
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        const productKey = text(body.productKey ?? c.req.query('productKey'));
        const idRaw = body.id ?? c.req.query('id');
        const id = idRaw !== undefined && idRaw !== '' ? positiveInt(idRaw, '缺少订阅ID') : undefined;
        if (!productKey && !id) throw badRequest('缺少 productKey');
        const deleted = await deleteSubscription(db, { productKey: productKey || undefined, id });
        if (!deleted) throw notFound(M.subscriptionNotFound);
        void amqp?.invalidate();
        return c.json({ code: 200, msg: M.deleted, data: null });
    });

    return app;
}

/** /api/consumerGroup: consumer groups of a project ('default' in each from its creation), their live status. */
export function consumerGroupRoutes({ db, config, amqp }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;

    app.get('/list', async (c) => {
        const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
        const projectCode = text(c.req.query('projectCode')) || undefined;
        const name = text(c.req.query('name')) || undefined;
        return ok(c, await listConsumerGroups(db, tz, { projectCode, name, limit: size, offset }));
    });

    app.post('/save', async (c) => {
        const body = await readBody(c);
        const idRaw = body.id;
        const id =
            idRaw !== undefined && idRaw !== '' && idRaw !== null
                ? positiveInt(idRaw, '消费者组ID必须是正整数')
                : undefined;
        const input = await validate(consumerGroupSchema, body);
        let saved: number;
        try {
            saved = await db.transaction((tx) => saveConsumerGroup(tx, { id, ...input }));
        } catch (err) {
            throw isUniqueViolation(err, GROUP_NAME_INDEX) ? conflict(M.groupNameTaken) : err;
        }
        return c.json({ code: 200, msg: id ? '修改成功' : '创建成功', data: await getConsumerGroup(db, saved, tz) });
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id ?? c.req.query('id'), '缺少消费者组ID');
        await db.transaction((tx) => deleteConsumerGroup(tx, id));
        amqp?.disconnectGroup(id);
        return c.json({ code: 200, msg: '删除成功', data: null });
    });

    app.get('/detail', async (c) => {
        const id = positiveInt(c.req.query('id'), '缺少消费者组ID');
        const group = await getConsumerGroup(db, id, tz);
        const status = amqp
            ? await amqp.groupStatus(id)
            : { clients: [], deliveryRate: 0, backlog: await backlogOf(db, id) };
        // In a cluster: the consumers of every member (each with its node), the delivery rates summed.
        const shares = await clusterShares();
        const byNode = shares?.map(({ nodeId, figures: f }) => {
            const g = (f.consumers ?? []).find((x) => x.groupId === id);
            return { nodeId, clients: g?.clients ?? [], deliveryRate: g?.deliveryRate ?? 0 };
        });
        if (byNode) {
            status.clients = byNode.flatMap((n) =>
                n.clients.map((cl) => ({ ...cl, connectedSince: new Date(cl.connectedSince), nodeId: n.nodeId })),
            );
            status.deliveryRate = Math.round(byNode.reduce((s, n) => s + n.deliveryRate, 0) * 10) / 10;
        }
        const clients = status.clients.map((cl, i) => ({
            id: i + 1,
            clientId: cl.clientId,
            address: cl.address,
            connectedSince: formatTime(cl.connectedSince, tz),
            delivered: cl.delivered,
            acknowledged: cl.acknowledged,
            ...('nodeId' in cl ? { nodeId: cl.nodeId } : {}),
        }));
        return ok(c, {
            ...group,
            subscriptions: await subscriptionsOfGroup(db, id, tz),
            clients,
            online: clients.length,
            delivered: clients.reduce((s, cl) => s + cl.delivered, 0),
            acknowledged: clients.reduce((s, cl) => s + cl.acknowledged, 0),
            backlog: status.backlog,
            deliveryRate: status.deliveryRate,
            ...(byNode && {
                nodes: byNode.map((n) => ({
                    nodeId: n.nodeId,
                    online: n.clients.length,
                    deliveryRate: n.deliveryRate,
                })),
            }),
        });
    });

    app.post('/clear', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id ?? c.req.query('id'), '缺少消费者组ID');
        await getConsumerGroup(db, id, tz);
        const cleared = amqp ? await amqp.clear(id) : 0;
        return c.json({ code: 200, msg: M.cleared, data: { cleared } });
    });

    return app;
}

/** The most AccessKeys one user may hold (Alibaba allows two; a few more here for rotation). */
export const ACCESS_KEY_LIMIT = 5;

/** /api/accessKey: the signed-in user's AccessKey pairs (AMQP consumers sign in with them). */
export function accessKeyRoutes({ db, config, amqp }: Services) {
    const app = new Hono<AppEnv>();
    const tz = config.timeZone;
    const present = (k: typeof accessKeys.$inferSelect) => ({
        id: k.id,
        accessKey: k.accessKey,
        enabled: k.enabled,
        status: k.enabled ? '启用' : '禁用',
        createTime: formatTime(k.createTime, tz),
        lastUsedTime: formatTime(k.lastUsedTime, tz),
    });

    app.get('/list', async (c) => {
        const user = c.get('user');
        const rows = await db
            .select()
            .from(accessKeys)
            .where(eq(accessKeys.userId, user.id))
            .orderBy(asc(accessKeys.id));
        return ok(c, { records: rows.map(present), total: rows.length });
    });

    app.post('/create', async (c) => {
        const user = c.get('user');
        const [{ n }] = await db.select({ n: count() }).from(accessKeys).where(eq(accessKeys.userId, user.id));
        if (n >= ACCESS_KEY_LIMIT) throw badRequest(M.accessKeyLimit);
        const accessKey = `LTAI${randomBytes(10).toString('hex')}`;
        const accessSecret = randomBytes(22).toString('base64url').slice(0, 30);
        const [row] = await db.insert(accessKeys).values({ userId: user.id, accessKey, accessSecret }).returning();
        // The only answer that carries the secret.
        return c.json({ code: 200, msg: '创建成功', data: { ...present(row), accessSecret } });
    });

    const mine = async (userId: number, id: number) => {
        const [row] = await db
            .select()
            .from(accessKeys)
            .where(and(eq(accessKeys.id, id), eq(accessKeys.userId, userId)));
        if (!row) throw notFound(M.accessKeyNotFound);
        return row;
    };

    app.post('/enable', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少 AccessKey ID');
        const raw = String(body.enabled ?? '').trim();
        if (!['true', 'false', '1', '0'].includes(raw)) throw badRequest('enabled 必须是 true 或 false');
        await mine(c.get('user').id, id);
        const [row] = await db
            .update(accessKeys)
            .set({ enabled: raw === 'true' || raw === '1' })
            .where(eq(accessKeys.id, id))
            .returning();
        // Consumers signed in with a key now disabled are disconnected (on this process; others refuse their next sign-in).
        if (!row.enabled) amqp?.disconnectKey(row.accessKey);
        return c.json({ code: 200, msg: '操作成功', data: present(row) });
    });

    app.post('/delete', async (c) => {
        const body = await readBody(c);
        const id = positiveInt(body.id, '缺少 AccessKey ID');
        const key = await mine(c.get('user').id, id);
        await db.delete(accessKeys).where(eq(accessKeys.id, id));
        amqp?.disconnectKey(key.accessKey);
        return c.json({ code: 200, msg: '删除成功', data: null });
    });

    return app;
}
