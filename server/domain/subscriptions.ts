import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { DEFAULT_CONSUMER_GROUP, SUBSCRIPTION_MESSAGES as M, SUBSCRIPTION_TYPE } from '../../schemas/subscription';
import type { Db, Tx } from '../db/client';
import { consumerGroups, devices, products, projects, subscriptionGroups, subscriptions } from '../db/schema';
import { badRequest, conflict, notFound } from '../http/errors';
import { formatTime } from '../http/time';
import { scopeByProjectCode } from '../rights/scope';
import { rowsOf } from '../db/rows';

/** Server-side subscriptions and consumer groups (docs/platform-api.md "Server subscription"). */

export const GROUP_NAME_INDEX = 'consumer_groups_project_name_uq';
export const SUBSCRIPTION_PRODUCT_INDEX = 'subscriptions_product_uq';

async function groupsOfSubscriptions(db: Db | Tx, ids: number[]) {
    const byId = new Map<number, Array<{ id: number; name: string }>>();
    if (!ids.length) return byId;
    const rows = await db
        .select({ subscriptionId: subscriptionGroups.subscriptionId, id: consumerGroups.id, name: consumerGroups.name })
        .from(subscriptionGroups)
        .innerJoin(consumerGroups, eq(consumerGroups.id, subscriptionGroups.groupId))
        .where(inArray(subscriptionGroups.subscriptionId, ids))
        .orderBy(asc(consumerGroups.id));
    for (const r of rows) {
        const list = byId.get(r.subscriptionId) ?? [];
        list.push({ id: r.id, name: r.name });
        byId.set(r.subscriptionId, list);
    }
    return byId;
}

const subscriptionColumns = {
    id: subscriptions.id,
    productId: subscriptions.productId,
    productKey: products.productKey,
    productName: products.productName,
    projectCode: subscriptions.projectCode,
    projectName: projects.name,
    msgTypes: subscriptions.msgTypes,
    createTime: subscriptions.createTime,
};

type SubscriptionRow = {
    id: number;
    productId: number;
    productKey: string;
    productName: string;
    projectCode: string;
    projectName: string | null;
    msgTypes: string;
    createTime: Date;
};

function present(row: SubscriptionRow, groups: Array<{ id: number; name: string }>, tz: string) {
    return {
        id: row.id,
        productId: row.productId,
        productKey: row.productKey,
        productName: row.productName,
        projectCode: row.projectCode,
        projectName: row.projectName ?? '',
        msgType: SUBSCRIPTION_TYPE,
        message: row.msgTypes.split(','),
        groups,
        group: groups.map((g) => g.id),
        createTime: formatTime(row.createTime, tz),
    };
}

export async function listSubscriptions(
    db: Db,
    tz: string,
    opts: { productId?: number; projectCode?: string; limit: number; offset: number },
) {
    const where = and(
        opts.productId ? eq(subscriptions.productId, opts.productId) : undefined,
        opts.projectCode ? eq(subscriptions.projectCode, opts.projectCode) : undefined,
        scopeByProjectCode(subscriptions.projectCode),
    );
    const rows = await db
        .select(subscriptionColumns)
        .from(subscriptions)
        .innerJoin(products, eq(products.id, subscriptions.productId))
        .leftJoin(projects, eq(projects.code, subscriptions.projectCode))
        .where(where)
        .orderBy(desc(subscriptions.createTime), desc(subscriptions.id))
        .limit(opts.limit)
        .offset(opts.offset);
    const [{ total }] = await db.select({ total: count() }).from(subscriptions).where(where);
    const groups = await groupsOfSubscriptions(
        db,
        rows.map((r) => r.id),
    );
    return { records: rows.map((r) => present(r, groups.get(r.id) ?? [], tz)), total };
}

export async function getSubscription(db: Db | Tx, id: number, tz: string) {
    const [row] = await db
        .select(subscriptionColumns)
        .from(subscriptions)
        .innerJoin(products, eq(products.id, subscriptions.productId))
        .leftJoin(projects, eq(projects.code, subscriptions.projectCode))
        .where(eq(subscriptions.id, id));
    if (!row) throw notFound(M.subscriptionNotFound);
    const groups = (await groupsOfSubscriptions(db, [id])).get(id) ?? [];
    return present(row, groups, tz);
}

async function productByKey(db: Db | Tx, productKey: string) {
    const [product] = await db
        .select({ id: products.id, projectCode: products.projectCode })
        .from(products)
        .where(eq(products.productKey, productKey));
    if (!product) throw badRequest(M.productNotFound);
    return product;
}

async function checkGroups(db: Db | Tx, projectCode: string, groupIds: number[]) {
    const found = await db
        .select({ id: consumerGroups.id, projectCode: consumerGroups.projectCode })
        .from(consumerGroups)
        .where(inArray(consumerGroups.id, groupIds));
    if (found.length !== new Set(groupIds).size) throw badRequest(M.groupNotFound);
    if (found.some((g) => g.projectCode !== projectCode)) throw badRequest(M.groupOtherProject);
}

export async function createSubscription(
    tx: Tx,
    input: { projectCode?: string; productKey: string; group: number[]; message: string[] },
): Promise<number> {
    const product = await productByKey(tx, input.productKey);
    const projectCode = input.projectCode || product.projectCode;
    if (!projectCode) throw badRequest(M.projectRequired);
    const [project] = await tx.select({ code: projects.code }).from(projects).where(eq(projects.code, projectCode));
    if (!project) throw badRequest(M.projectRequired);
    const [existing] = await tx
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(eq(subscriptions.productId, product.id));
    if (existing) throw conflict(M.productSubscribed);
    await checkGroups(tx, projectCode, input.group);
    const [row] = await tx
        .insert(subscriptions)
        .values({ productId: product.id, projectCode, msgTypes: [...new Set(input.message)].join(',') })
        .returning({ id: subscriptions.id });
    await tx
        .insert(subscriptionGroups)
        .values([...new Set(input.group)].map((groupId) => ({ subscriptionId: row.id, groupId })));
    return row.id;
}

export async function updateSubscription(
    tx: Tx,
    id: number,
    input: { productKey: string; group: number[]; message: string[] },
) {
    const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id));
    if (!sub) throw notFound(M.subscriptionNotFound);
    const product = await productByKey(tx, input.productKey);
    if (product.id !== sub.productId) {
        const [other] = await tx
            .select({ id: subscriptions.id })
            .from(subscriptions)
            .where(eq(subscriptions.productId, product.id));
        if (other) throw conflict(M.productSubscribed);
    }
    await checkGroups(tx, sub.projectCode, input.group);
    await tx
        .update(subscriptions)
        .set({ productId: product.id, msgTypes: [...new Set(input.message)].join(',') })
        .where(eq(subscriptions.id, id));
    await tx.delete(subscriptionGroups).where(eq(subscriptionGroups.subscriptionId, id));
    await tx
        .insert(subscriptionGroups)
        .values([...new Set(input.group)].map((groupId) => ({ subscriptionId: id, groupId })));
}

/** By ProductKey (the platform's delete) or by id. Answers whether one was deleted. */
export async function deleteSubscription(db: Db, by: { productKey?: string; id?: number }): Promise<boolean> {
    if (by.id) {
        const removed = await db
            .delete(subscriptions)
            .where(eq(subscriptions.id, by.id))
            .returning({ id: subscriptions.id });
        return removed.length > 0;
    }
    const [product] = await db
        .select({ id: products.id })
        .from(products)
        .where(eq(products.productKey, by.productKey!));
    if (!product) return false;
    const removed = await db
        .delete(subscriptions)
        .where(eq(subscriptions.productId, product.id))
        .returning({ id: subscriptions.id });
    return removed.length > 0;
}

/** Products for the subscription dialog, each with whether it already has a subscription. */
export async function subscribableProducts(db: Db, projectCode?: string) {
    const rows = await db
        .select({
            productId: products.id,
            productKey: products.productKey,
            productName: products.productName,
            projectCode: products.projectCode,
            subscriptionId: subscriptions.id,
        })
        .from(products)
        .leftJoin(subscriptions, eq(subscriptions.productId, products.id))
        .where(projectCode ? eq(products.projectCode, projectCode) : undefined)
        .orderBy(desc(products.createTime), desc(products.id))
        .limit(1000);
    return rows.map((r) => ({
        id: r.productKey,
        productId: r.productId,
        productKey: r.productKey,
        productName: r.productName,
        projectCode: r.projectCode,
        subscribed: r.subscriptionId !== null,
    }));
}

/** The subscriptions and consumer groups that receive one device's messages (device detail, 数据订阅). */
export async function deviceSubscriptions(db: Db, deviceId: number, tz: string) {
    const [device] = await db.select({ productId: devices.productId }).from(devices).where(eq(devices.id, deviceId));
    if (!device) throw notFound('设备不存在');
    const rows = await db
        .select(subscriptionColumns)
        .from(subscriptions)
        .innerJoin(products, eq(products.id, subscriptions.productId))
        .leftJoin(projects, eq(projects.code, subscriptions.projectCode))
        .where(eq(subscriptions.productId, device.productId));
    const groups = await groupsOfSubscriptions(
        db,
        rows.map((r) => r.id),
    );
    const records = rows.flatMap((r) =>
        (groups.get(r.id) ?? []).map((g) => ({
            id: `${r.id}-${g.id}`,
            subscriptionId: r.id,
            productKey: r.productKey,
            productName: r.productName,
            msgType: SUBSCRIPTION_TYPE,
            message: r.msgTypes.split(','),
            groupId: g.id,
            groupName: g.name,
            createTime: formatTime(r.createTime, tz),
        })),
    );
    return { records, total: records.length };
}

// Consumer groups

function presentGroup(
    g: { id: number; name: string; projectCode: string; projectName: string | null; createTime: Date; dropped: number },
    tz: string,
) {
    return {
        id: g.id,
        name: g.name,
        projectCode: g.projectCode,
        projectName: g.projectName ?? '',
        dropped: g.dropped,
        createTime: formatTime(g.createTime, tz),
    };
}

const groupColumns = {
    id: consumerGroups.id,
    name: consumerGroups.name,
    projectCode: consumerGroups.projectCode,
    projectName: projects.name,
    createTime: consumerGroups.createTime,
    dropped: consumerGroups.dropped,
};

export async function listConsumerGroups(
    db: Db,
    tz: string,
    opts: { projectCode?: string; name?: string; limit: number; offset: number },
) {
    const where = and(
        opts.projectCode ? eq(consumerGroups.projectCode, opts.projectCode) : undefined,
        scopeByProjectCode(consumerGroups.projectCode),
        opts.name ? sql`strpos(lower(${consumerGroups.name}), lower(${opts.name})) > 0` : undefined,
    );
    const rows = await db
        .select(groupColumns)
        .from(consumerGroups)
        .leftJoin(projects, eq(projects.code, consumerGroups.projectCode))
        .where(where)
        .orderBy(desc(consumerGroups.createTime), desc(consumerGroups.id))
        .limit(opts.limit)
        .offset(opts.offset);
    const [{ total }] = await db.select({ total: count() }).from(consumerGroups).where(where);
    return { records: rows.map((r) => presentGroup(r, tz)), total };
}

export async function getConsumerGroup(db: Db | Tx, id: number, tz: string) {
    const [row] = await db
        .select(groupColumns)
        .from(consumerGroups)
        .leftJoin(projects, eq(projects.code, consumerGroups.projectCode))
        .where(eq(consumerGroups.id, id));
    if (!row) throw notFound(M.groupNotFound);
    return presentGroup(row, tz);
}

export async function saveConsumerGroup(tx: Tx, input: { id?: number; projectCode: string; name: string }) {
    const [project] = await tx
        .select({ code: projects.code })
        .from(projects)
        .where(eq(projects.code, input.projectCode));
    if (!project) throw badRequest(M.projectRequired);
    if (input.id) {
        const [group] = await tx.select().from(consumerGroups).where(eq(consumerGroups.id, input.id));
        if (!group) throw notFound(M.groupNotFound);
        if (group.name === DEFAULT_CONSUMER_GROUP && input.name !== DEFAULT_CONSUMER_GROUP)
            throw badRequest('默认消费者组不能改名');
        if (group.projectCode !== input.projectCode) {
            const [used] = await tx
                .select({ n: count() })
                .from(subscriptionGroups)
                .where(eq(subscriptionGroups.groupId, input.id));
            if (used.n > 0) throw badRequest('该消费者组已被订阅使用，不能改换项目');
        }
        await tx
            .update(consumerGroups)
            .set({ name: input.name, projectCode: input.projectCode })
            .where(eq(consumerGroups.id, input.id));
        return input.id;
    }
    const [row] = await tx
        .insert(consumerGroups)
        .values({ projectCode: input.projectCode, name: input.name })
        .returning({ id: consumerGroups.id });
    return row.id;
}

export async function deleteConsumerGroup(tx: Tx, id: number) {
    const [group] = await tx.select().from(consumerGroups).where(eq(consumerGroups.id, id));
    if (!group) throw notFound(M.groupNotFound);
    if (group.name === DEFAULT_CONSUMER_GROUP) throw badRequest('默认消费者组不能删除');
    const [used] = await tx.select({ n: count() }).from(subscriptionGroups).where(eq(subscriptionGroups.groupId, id));
    if (used.n > 0) throw badRequest('该消费者组已被订阅使用，请先在订阅中移除');
    await tx.delete(consumerGroups).where(eq(consumerGroups.id, id));
}

/** The subscriptions that send to a group (its detail page). */
export async function subscriptionsOfGroup(db: Db, groupId: number, tz: string) {
    const rows = await db
        .select(subscriptionColumns)
        .from(subscriptionGroups)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionGroups.subscriptionId))
        .innerJoin(products, eq(products.id, subscriptions.productId))
        .leftJoin(projects, eq(projects.code, subscriptions.projectCode))
        .where(eq(subscriptionGroups.groupId, groupId))
        .orderBy(desc(subscriptions.createTime));
    return rows.map((r) => present(r, [], tz));
}

export async function backlogOf(db: Db, groupId: number): Promise<number> {
    const result = await db.execute(sql`SELECT count(*)::int AS n FROM amqp_queue WHERE group_id = ${groupId}`);
    return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}
