import { randomInt } from 'node:crypto';
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import {
    CONFIG_MESSAGES,
    CONFIG_REPLY_WAIT_MS,
    configPushSchema,
    type ConfigPushState,
} from '../../schemas/remoteConfig';
import type { Db } from '../db/client';
import {
    deviceGroups,
    devices,
    groupDevices,
    products,
    remoteConfigPushDevices,
    remoteConfigPushes,
    remoteConfigVersions,
} from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';
import { scopeByProjectId } from '../rights/scope';
import { CONFIG_PUSH } from './device';
import { configData, logConfig, type ConfigState } from './state';
import { currentVersion } from './versions';

/**
 * 批量推送: the product's current file pushed on `thing/config/push` to its devices (all, or one group's). Each device
 * gets a row: 推送中 once sent (a connected device, on whichever process holds it: the broker carries the publish
 * there), 离线未推送 when not connected; its push_reply (device.ts) makes it 成功 or 失败 with its code.
 */

interface Target {
    id: number;
    deviceName: string;
    online: boolean;
}

/** The devices the push reaches: the product's (one group's), within the caller's projects. */
async function targets(state: ConfigState, productId: number, groupId: number | undefined): Promise<Target[]> {
    const where: Array<SQL | undefined> = [eq(devices.productId, productId), scopeByProjectId(devices.projectId)];
    if (groupId !== undefined)
        where.push(
            inArray(
                devices.id,
                state.db
                    .select({ id: groupDevices.deviceId })
                    .from(groupDevices)
                    .where(eq(groupDevices.groupId, groupId)),
            ),
        );
    const rows = await state.db
        .select({ id: devices.id, deviceName: devices.deviceName, status: devices.status, enabled: devices.enabled })
        .from(devices)
        .where(and(...where))
        .orderBy(devices.id);
    const backend = state.backend;
    // Connected here, or to another process of the platform (its status says ONLINE); none without a broker.
    return rows.map((r) => ({
        id: Number(r.id),
        deviceName: r.deviceName,
        online: !!backend && r.enabled && (backend.isOnline(Number(r.id)) || r.status === 'ONLINE'),
    }));
}

const newMessageId = () => String(randomInt(1, 2 ** 47));

/** Publishes the push to each device as the platform (QoS 1), wherever it is connected; logs each. */
async function publishPushes(
    state: ConfigState,
    product: { id: number; productKey: string },
    rows: Array<{ deviceId: number; deviceName: string; messageId: string }>,
    params: unknown,
) {
    const backend = state.backend;
    if (!backend) return;
    for (const r of rows) {
        const topic = `/sys/${product.productKey}/${r.deviceName}/thing/config/push`;
        const body = JSON.stringify({ id: r.messageId, version: '1.0', params, method: CONFIG_PUSH });
        const sent = backend.publishDown
            ? backend.publishDown(topic, body, 1)
            : backend.publishTo(r.deviceId, topic, body, 1);
        await Promise.resolve(sent).catch((err: unknown) =>
            state.logError('远程配置推送失败 / config push failed:', err),
        );
        logConfig(state, r.deviceId, product.id, CONFIG_PUSH, { direction: 'down', id: r.messageId, params });
    }
}

/** Starts a push of the product's current file; answers the push with its counts. */
export async function startPush(state: ConfigState, productId: number, body: Record<string, unknown>) {
    const input = await validate(configPushSchema, body);
    const [product] = await state.db
        .select({ id: products.id, productKey: products.productKey })
        .from(products)
        .where(eq(products.id, productId));
    if (!product) throw notFound('产品不存在');
    const version = await currentVersion(state.db, productId);
    if (!version) throw badRequest(CONFIG_MESSAGES.noConfig);
    let group: { id: number; name: string } | undefined;
    if (input.scope === 'group') {
        [group] = await state.db
            .select({ id: deviceGroups.id, name: deviceGroups.name })
            .from(deviceGroups)
            .where(eq(deviceGroups.id, input.groupId!));
        if (!group) throw notFound('分组不存在');
    }
    const chosen = await targets(state, productId, group?.id);
    if (!chosen.length) throw badRequest(group ? CONFIG_MESSAGES.noGroupDevices : CONFIG_MESSAGES.noDevices);
    const rows = chosen.map((t) => ({
        deviceId: t.id,
        deviceName: t.deviceName,
        messageId: newMessageId(),
        state: (t.online ? 'pushing' : 'offline') as ConfigPushState,
    }));
    const pushId = await state.db.transaction(async (tx) => {
        const [push] = await tx
            .insert(remoteConfigPushes)
            .values({
                productId,
                versionId: version.id,
                scope: input.scope,
                groupId: group?.id ?? null,
                groupName: group?.name ?? null,
                total: rows.length,
                // The service's clock: how long the push has waited for answers is measured on it.
                createTime: state.now(),
            })
            .returning({ id: remoteConfigPushes.id });
        for (let i = 0; i < rows.length; i += 1000)
            await tx
                .insert(remoteConfigPushDevices)
                .values(rows.slice(i, i + 1000).map((r) => ({ ...r, pushId: push.id })));
        return push.id;
    });
    const params = await configData(state, version);
    await publishPushes(
        state,
        product,
        rows.filter((r) => r.state === 'pushing'),
        params,
    );
    const { waitOver: _over, ...summary } = await pushSummary(
        state.db,
        productId,
        pushId,
        state.config.timeZone,
        state.now(),
    );
    return summary;
}

const COUNTS = sql<Record<string, number>>`(SELECT json_build_object(
    'pushing', count(*) FILTER (WHERE pd.state = 'pushing'),
    'succeeded', count(*) FILTER (WHERE pd.state = 'succeeded'),
    'failed', count(*) FILTER (WHERE pd.state = 'failed'),
    'offline', count(*) FILTER (WHERE pd.state = 'offline'))
    FROM remote_config_push_devices pd WHERE pd.push_id = ${remoteConfigPushes.id})`;

/** Whether the push's 推送中 devices are 未应答 by `now` (its wait for answers is over). */
const waitOver = (createTime: Date, now: Date) => now.getTime() - createTime.getTime() > CONFIG_REPLY_WAIT_MS;

const pushColumns = {
    p: remoteConfigPushes,
    version: remoteConfigVersions.version,
    configId: remoteConfigVersions.configId,
    counts: COUNTS,
};

type PushRow = { p: typeof remoteConfigPushes.$inferSelect; version: number; configId: string; counts: unknown };

function pushView(r: PushRow, timeZone: string, now: Date) {
    const counts = (typeof r.counts === 'string' ? JSON.parse(r.counts) : r.counts) as Record<string, number>;
    const n = (k: string) => Number(counts?.[k] ?? 0);
    const over = waitOver(r.p.createTime, now);
    return {
        pushId: r.p.id,
        productId: r.p.productId,
        versionId: r.p.versionId,
        version: r.version,
        configId: r.configId,
        scope: r.p.scope,
        groupId: r.p.groupId,
        groupName: r.p.groupName ?? '',
        total: r.p.total,
        pushing: over ? 0 : n('pushing'),
        succeeded: n('succeeded'),
        failed: n('failed'),
        offline: n('offline'),
        timeout: over ? n('pushing') : 0,
        createTime: formatTime(r.p.createTime, timeZone),
    };
}

/** One push of the product with its counts (404 when it is not the product's). */
export async function pushSummary(db: Db, productId: number, pushId: number, timeZone: string, now: Date) {
    const [row] = await db
        .select(pushColumns)
        .from(remoteConfigPushes)
        .innerJoin(remoteConfigVersions, eq(remoteConfigVersions.id, remoteConfigPushes.versionId))
        .where(and(eq(remoteConfigPushes.productId, productId), eq(remoteConfigPushes.id, pushId)));
    if (!row) throw notFound(CONFIG_MESSAGES.pushNotFound);
    return { ...pushView(row, timeZone, now), waitOver: waitOver(row.p.createTime, now) };
}

/** A page of the product's pushes, newest first, with each one's counts. */
export async function listPushes(
    db: Db,
    productId: number,
    page: { size: number; offset: number },
    timeZone: string,
    now: Date,
) {
    const rows = await db
        .select(pushColumns)
        .from(remoteConfigPushes)
        .innerJoin(remoteConfigVersions, eq(remoteConfigVersions.id, remoteConfigPushes.versionId))
        .where(eq(remoteConfigPushes.productId, productId))
        .orderBy(desc(remoteConfigPushes.id))
        .limit(page.size)
        .offset(page.offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(remoteConfigPushes)
        .where(eq(remoteConfigPushes.productId, productId));
    return { records: rows.map((r) => pushView(r, timeZone, now)), total: Number(n.n) };
}

/** The condition on a device's stored state for the state asked (未应答 is 推送中 once the wait is over). */
function stateWhere(state: string | undefined, over: boolean): SQL | undefined {
    if (!state) return undefined;
    if (state === 'timeout') return over ? eq(remoteConfigPushDevices.state, 'pushing') : sql`false`;
    if (state === 'pushing' && over) return sql`false`;
    return eq(remoteConfigPushDevices.state, state);
}

/** A page of one push's devices (optionally of one state), by device id. */
export async function pushDevices(
    db: Db,
    at: { productId: number; pushId: number; state?: string },
    page: { size: number; offset: number },
    timeZone: string,
    now: Date,
) {
    const push = await pushSummary(db, at.productId, at.pushId, timeZone, now);
    const where = and(eq(remoteConfigPushDevices.pushId, at.pushId), stateWhere(at.state, push.waitOver));
    const rows = await db
        .select()
        .from(remoteConfigPushDevices)
        .where(where)
        .orderBy(remoteConfigPushDevices.deviceId)
        .limit(page.size)
        .offset(page.offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(remoteConfigPushDevices)
        .where(where);
    return {
        records: rows.map((r) => ({
            deviceId: Number(r.deviceId),
            deviceName: r.deviceName,
            state: r.state === 'pushing' && push.waitOver ? 'timeout' : r.state,
            code: r.code,
            message: r.message ?? '',
            replyTime: formatTime(r.repliedAt, timeZone),
        })),
        total: Number(n.n),
    };
}
