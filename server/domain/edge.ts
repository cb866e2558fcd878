import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import {
    devices,
    edgeDeployments,
    edgeDrivers,
    edgeFunctions,
    edgeInstanceDevices,
    edgeInstanceDrivers,
    edgeInstanceRules,
    edgeInstances,
    edgeRoutes,
    edgeStreams,
    products,
    rules,
} from '../db/schema';
import { EDGE_SETTINGS_DEFAULTS } from '../../schemas/edge';
import type { AccessHub } from '../mqtt/access';
import { formatTime } from '../http/time';

/**
 * Edge deployment: an instance's whole configuration (its drivers with their configuration and the sub-devices each
 * driver serves, its scene linkage rules, functions, stream-analysis jobs, message routes and settings) goes to its gateway as one versioned document on the gateway's own custom topic
 * `/{pk}/{dn}/user/edge/deploy`; the gateway answers on `/{pk}/{dn}/user/edge/deploy_reply` with
 * `{ id, code, message }` (code 200 applied). The answer is recorded on the deployment (the log tab).
 */

export const DEPLOY_TOPIC = 'user/edge/deploy';
export const DEPLOY_REPLY_FILTER = '/+/+/user/edge/deploy_reply';
export const DEPLOY_WAIT_MS = 5_000;

export async function deploymentDocument(db: Db, instanceId: number, version: number) {
    const [instance] = await db.select().from(edgeInstances).where(eq(edgeInstances.id, instanceId));
    const drivers = await db
        .select({
            driverId: edgeDrivers.id,
            name: edgeDrivers.name,
            version: edgeDrivers.version,
            protocol: edgeDrivers.protocol,
            config: edgeInstanceDrivers.config,
        })
        .from(edgeInstanceDrivers)
        .innerJoin(edgeDrivers, eq(edgeDrivers.id, edgeInstanceDrivers.driverId))
        .where(eq(edgeInstanceDrivers.instanceId, instanceId))
        .orderBy(asc(edgeDrivers.name));
    const subDevices = await db
        .select({
            driverId: edgeInstanceDevices.driverId,
            productKey: products.productKey,
            deviceName: devices.deviceName,
            config: edgeInstanceDevices.config,
        })
        .from(edgeInstanceDevices)
        .innerJoin(devices, eq(devices.id, edgeInstanceDevices.deviceId))
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(edgeInstanceDevices.instanceId, instanceId))
        .orderBy(asc(devices.deviceName));
    const [scenes, functions, streams, routes] = await Promise.all([
        db
            .select({
                ruleId: rules.id,
                name: rules.name,
                enabled: rules.enabled,
                productKey: products.productKey,
                deviceName: devices.deviceName,
                triggers: rules.triggers,
                match: rules.match,
                conditions: rules.conditions,
                durationSeconds: rules.durationSeconds,
                timeWindow: rules.timeWindow,
                actions: rules.actions,
            })
            .from(edgeInstanceRules)
            .innerJoin(rules, eq(rules.id, edgeInstanceRules.ruleId))
            .innerJoin(products, eq(products.id, rules.productId))
            .leftJoin(devices, eq(devices.id, rules.deviceId))
            .where(eq(edgeInstanceRules.instanceId, instanceId))
            .orderBy(asc(rules.id)),
        db
            .select({
                name: edgeFunctions.name,
                runtime: edgeFunctions.runtime,
                handler: edgeFunctions.handler,
                code: edgeFunctions.code,
                memoryMb: edgeFunctions.memoryMb,
                timeoutSeconds: edgeFunctions.timeoutSeconds,
                mode: edgeFunctions.mode,
                env: edgeFunctions.env,
            })
            .from(edgeFunctions)
            .where(eq(edgeFunctions.instanceId, instanceId))
            .orderBy(asc(edgeFunctions.name)),
        db
            .select({
                name: edgeStreams.name,
                sourceTopic: edgeStreams.sourceTopic,
                windowType: edgeStreams.windowType,
                windowSeconds: edgeStreams.windowSeconds,
                statement: edgeStreams.statement,
                targetType: edgeStreams.targetType,
                targetName: edgeStreams.targetName,
            })
            .from(edgeStreams)
            .where(eq(edgeStreams.instanceId, instanceId))
            .orderBy(asc(edgeStreams.name)),
        db
            .select({
                id: edgeRoutes.id,
                sourceType: edgeRoutes.sourceType,
                sourceName: edgeRoutes.sourceName,
                topicFilter: edgeRoutes.topicFilter,
                targetType: edgeRoutes.targetType,
                targetName: edgeRoutes.targetName,
                qos: edgeRoutes.qos,
            })
            .from(edgeRoutes)
            .where(eq(edgeRoutes.instanceId, instanceId))
            .orderBy(asc(edgeRoutes.id)),
    ]);
    return {
        version,
        instance: { id: instance.id, name: instance.name, spec: instance.spec },
        drivers: drivers.map(({ driverId, ...d }) => ({
            ...d,
            devices: subDevices.filter((s) => s.driverId === driverId).map(({ driverId: _d, ...s }) => s),
        })),
        scenes,
        functions,
        streams,
        routes,
        settings: { ...EDGE_SETTINGS_DEFAULTS, ...(instance.settings as object) },
    };
}

type AedesLike = {
    subscribe(
        topic: string,
        deliver: (packet: { payload: Buffer | string }, cb: () => void) => void,
        done: () => void,
    ): void;
};

/** Records gateways' answers to deployments; one subscription per broker, made at the first deployment. */
export function createDeployer(db: Db, access: AccessHub | undefined, now: () => Date) {
    const waiting = new Map<number, () => void>();
    let listeningOn: unknown;

    async function record(payload: Buffer) {
        let answer: { id?: unknown; code?: unknown; message?: unknown };
        try {
            answer = JSON.parse(payload.toString('utf8')) as typeof answer;
        } catch {
            return;
        }
        const id = Number(answer.id);
        if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) return;
        const success = Number(answer.code) === 200;
        const message =
            typeof answer.message === 'string' ? answer.message.slice(0, 500) : success ? '部署成功' : '部署失败';
        await db
            .update(edgeDeployments)
            .set({ status: success ? 'success' : 'failed', message, answerTime: now() })
            .where(and(eq(edgeDeployments.id, id), eq(edgeDeployments.status, 'pending')));
        waiting.get(id)?.();
    }

    async function listen() {
        const aedes = access?.backend?.aedes as unknown as AedesLike | undefined;
        if (!aedes || listeningOn === aedes) return;
        listeningOn = aedes;
        await new Promise<void>((resolve) =>
            aedes.subscribe(
                DEPLOY_REPLY_FILTER,
                (packet, cb) => {
                    record(Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)).catch(
                        () => undefined,
                    );
                    cb();
                },
                resolve,
            ),
        );
    }

    return {
        /**
         * Sends the instance's configuration as the next version and waits up to `waitMs` for the gateway's answer.
         * Answers the deployment as recorded then (pending when the gateway has not answered yet).
         */
        async deploy(instanceId: number, waitMs = DEPLOY_WAIT_MS) {
            const [instance] = await db
                .select({
                    version: edgeInstances.version,
                    gatewayId: edgeInstances.gatewayId,
                    productKey: products.productKey,
                    deviceName: devices.deviceName,
                })
                .from(edgeInstances)
                .innerJoin(devices, eq(devices.id, edgeInstances.gatewayId))
                .innerJoin(products, eq(products.id, devices.productId))
                .where(eq(edgeInstances.id, instanceId));
            const version = instance.version + 1;
            const document = await deploymentDocument(db, instanceId, version);
            const online = access?.isOnline(instance.gatewayId) ?? false;
            const [row] = await db.transaction(async (tx) => {
                await tx.update(edgeInstances).set({ version }).where(eq(edgeInstances.id, instanceId));
                return tx
                    .insert(edgeDeployments)
                    .values({
                        instanceId,
                        version,
                        document,
                        status: online ? 'pending' : 'offline',
                        message: online ? null : '网关设备不在线，配置未下发',
                    })
                    .returning({ id: edgeDeployments.id });
            });
            if (online && access?.backend) {
                await listen();
                const answered = new Promise<void>((resolve) => {
                    waiting.set(row.id, resolve);
                    setTimeout(resolve, waitMs);
                });
                const topic = `/${instance.productKey}/${instance.deviceName}/${DEPLOY_TOPIC}`;
                const sent = await access.backend.publishTo(
                    instance.gatewayId,
                    topic,
                    JSON.stringify({ id: String(row.id), version: '1.0', method: 'edge.deploy', params: document }),
                    1,
                );
                if (!sent) {
                    await db
                        .update(edgeDeployments)
                        .set({ status: 'offline', message: '网关设备不在线，配置未下发' })
                        .where(eq(edgeDeployments.id, row.id));
                } else {
                    await answered;
                }
                waiting.delete(row.id);
            }
            return row.id;
        },
    };
}

export type Deployer = ReturnType<typeof createDeployer>;

export async function deploymentRows(db: Db, instanceId: number, size: number, offset: number, timeZone: string) {
    const rows = await db
        .select()
        .from(edgeDeployments)
        .where(eq(edgeDeployments.instanceId, instanceId))
        .orderBy(desc(edgeDeployments.version))
        .limit(size)
        .offset(offset);
    const [{ n }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(edgeDeployments)
        .where(eq(edgeDeployments.instanceId, instanceId));
    return {
        records: rows.map((r) => ({
            id: r.id,
            instanceId: r.instanceId,
            version: r.version,
            status: r.status,
            message: r.message,
            document: JSON.stringify(r.document),
            createTime: formatTime(r.createTime, timeZone),
            answerTime: formatTime(r.answerTime, timeZone),
        })),
        total: Number(n),
    };
}
