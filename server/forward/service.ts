import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { FORWARD_CHANNEL, listenForChanges } from '../db/changes';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import type { AccessHub } from '../mqtt/access';
import { senderConfig, kindOf, type DestinationRow } from './destinationStore';
import type { Sender, SenderContext } from './destinations/types';
import { compiled, type FlowRates } from './flowStore';
import { sharedHorizon } from './horizon';
import { sharedReads } from './readShare';
import { startRoute, type RouteOptions, type RouteWorker } from './route';
import type { SecretBox } from './secrets';

/**
 * The forwarding runtime of one process (docs/forwarding.md): a worker per route of every enabled flow (the lease
 * decides which process sends it), one horizon for all, woken as this process stores messages and polling otherwise;
 * loaded again when a flow or destination changes here or, over NOTIFY, in another process.
 */

export interface ForwardServiceOptions {
    db: Db;
    databaseUrl?: string;
    timeZone: string;
    /** The secret box (secrets.ts platformSecretBox). */
    box: () => Promise<SecretBox>;
    access?: Pick<AccessHub, 'onAttach' | 'backend'>;
    log: (message: string) => void;
    route?: Partial<RouteOptions>;
    /** How long an id gap in device_messages is waited for (server/forward/horizon.ts). */
    gapWaitMs?: number;
    leaseMs?: number;
}

interface Running {
    signature: string;
    flowId: number;
    worker: RouteWorker;
    sender: Sender;
}

interface LoadedRoute extends Record<string, unknown> {
    route_id: number;
    flow_id: number;
    flow_name: string;
    project_id: number;
    sql: string;
    flow_time: string | Date;
    destination_id: number;
    kind: string;
    config: Record<string, unknown>;
    secrets: string | null;
    destination_time: string | Date;
}

export const DEFAULT_ROUTE_OPTIONS: RouteOptions = {
    batch: 500,
    maxAttempts: 3,
    backlogMax: 1_000_000,
    backlogHours: 24,
    idleMs: 500,
    backoffMs: (attempt) => Math.min(30_000, 250 * 2 ** Math.min(attempt, 10)),
};

export function createForwardService(o: ForwardServiceOptions) {
    const owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
    const lease = { db: o.db, owner, leaseMs: o.leaseMs ?? 15_000 };
    const options = { ...DEFAULT_ROUTE_OPTIONS, ...o.route };
    const horizon = sharedHorizon(o.db, o.gapWaitMs ?? 5_000);
    const read = sharedReads(o.db, options.batch);
    const running = new Map<number, Running>();
    const context: SenderContext = { log: o.log, platform: { publish: platformPublish(o.access) } };
    const sampler = createSampler(running);
    let loading: Promise<void> = Promise.resolve();
    let closed = false;
    const changes = listenForChanges(
        o.db,
        o.databaseUrl,
        FORWARD_CHANNEL,
        () => void refresh(),
        (m, err) => o.log(`${m} ${String(err)}`),
    );

    let box: SecretBox | undefined;

    async function load() {
        if (closed) return;
        box ??= await o.box();
        const rows = rowsOf<LoadedRoute>(
            await o.db.execute(sql`
                SELECT r.id AS route_id, f.id AS flow_id, f.name AS flow_name, f.project_id, f.sql, f.update_time AS flow_time,
                       d.id AS destination_id, d.kind, d.config, d.secrets, d.update_time AS destination_time
                FROM forward_routes r
                JOIN forward_flows f ON f.id = r.flow_id
                JOIN forward_destinations d ON d.id = r.destination_id
                WHERE f.enabled`),
        );
        const wanted = new Map(rows.map((r) => [Number(r.route_id), r]));
        for (const [id, run] of running) {
            const row = wanted.get(id);
            if (!row || signatureOf(row) !== run.signature) await stop(id);
        }
        for (const [id, row] of wanted) if (!running.has(id)) start(id, row);
    }

    function start(routeId: number, row: LoadedRoute) {
        try {
            const flow = compiled(row.sql, o.timeZone);
            const kind = kindOf(row.kind);
            const destination = { kind: row.kind, config: row.config, secrets: row.secrets } as DestinationRow;
            const sender = kind.open(senderConfig(destination, box!), context);
            const worker = startRoute({
                lease,
                routeId,
                flow: {
                    id: Number(row.flow_id),
                    name: row.flow_name,
                    projectId: Number(row.project_id),
                    run: (m) => flow.run(m),
                },
                sender,
                horizon,
                read,
                options,
                log: o.log,
            });
            running.set(routeId, { signature: signatureOf(row), flowId: Number(row.flow_id), worker, sender });
        } catch (err) {
            o.log(`数据流转 ${row.flow_name} 无法启动 / forwarding route ${routeId} could not start: ${String(err)}`);
        }
    }

    async function stop(routeId: number) {
        const run = running.get(routeId);
        if (!run) return;
        running.delete(routeId);
        await run.worker.stop();
        await run.sender.close().catch(() => undefined);
    }

    function refresh(): Promise<void> {
        loading = loading
            .then(load, load)
            .catch((err) => o.log(`数据流转加载失败 / loading forwarding failed: ${String(err)}`));
        return loading;
    }

    let wakeTimer: NodeJS.Timeout | undefined;
    /** New messages were stored here: the routes read now (at most every 20 ms). */
    function wake() {
        wakeTimer ??= setTimeout(() => {
            wakeTimer = undefined;
            for (const run of running.values()) run.worker.wake();
        }, 20);
    }
    o.access?.onAttach((backend) => backend.uplink?.onAccepted(wake));

    return {
        owner,
        start: refresh,
        /** After this process changed a flow or destination: loads again and tells the other processes. */
        async changed() {
            await refresh();
            await changes.announce().catch((err) => o.log(`数据流转变更通知失败 / announcing failed: ${String(err)}`));
        },
        rates: sampler as FlowRates,
        context,
        box: o.box,
        /** The workers running here, by route id (tests). */
        running,
        async close() {
            closed = true;
            clearTimeout(wakeTimer);
            sampler.close();
            await loading;
            for (const id of [...running.keys()]) await stop(id);
            await changes.close();
        },
    };
}

export type ForwardService = ReturnType<typeof createForwardService>;

const signatureOf = (r: LoadedRoute) => `${new Date(r.flow_time).getTime()}|${new Date(r.destination_time).getTime()}`;

function platformPublish(access: ForwardServiceOptions['access']) {
    return async (topic: string, payload: string, qos: 0 | 1) => {
        const publishDown = access?.backend?.publishDown;
        if (!publishDown) throw new Error('平台的设备接入（MQTT）没有运行 / device access is not running');
        await publishDown(topic, payload, qos);
    };
}

/** Per flow, selected and sent per second over the last 5 s, from this process's workers. */
function createSampler(running: Map<number, Running>) {
    let previous = new Map<number, { selected: number; sent: number }>();
    let perSecond = new Map<number, { selectedPerSecond: number; sentPerSecond: number }>();
    const totals = () => {
        const out = new Map<number, { selected: number; sent: number }>();
        for (const run of running.values()) {
            const t = out.get(run.flowId) ?? { selected: 0, sent: 0 };
            // A flow's destinations select the same messages: the flow selected the most any of them did.
            out.set(run.flowId, {
                selected: Math.max(t.selected, run.worker.figures.selected),
                sent: t.sent + run.worker.figures.sent,
            });
        }
        return out;
    };
    const timer = setInterval(() => {
        const now = totals();
        perSecond = new Map(
            [...now].map(([id, t]) => {
                const p = previous.get(id) ?? t;
                return [
                    id,
                    {
                        selectedPerSecond: Math.max(0, (t.selected - p.selected) / 5),
                        sentPerSecond: Math.max(0, (t.sent - p.sent) / 5),
                    },
                ];
            }),
        );
        previous = now;
    }, 5_000);
    timer.unref();
    return {
        rates(flowId: number) {
            return {
                selected: totals().get(flowId)?.selected ?? 0,
                ...(perSecond.get(flowId) ?? { selectedPerSecond: 0, sentPerSecond: 0 }),
            };
        },
        close: () => clearInterval(timer),
    };
}
