import pTimeout from 'p-timeout';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { badRequest } from '../http/errors';
import { inScope } from '../rights/scope';
import { checkedConfig, destinationOf, kindOf, senderConfig } from './destinationStore';
import type { ForwardRecord, Sender, SenderContext } from './destinations/types';
import { compiled } from './flowStore';
import { flowMessageOf, type StoredMessage } from './messages';
import type { SecretBox } from './secrets';
import type { FlowMessage } from './sql';

/** What the console asks beside saving: 测试连接, 调试 and 重新投递 (docs/forwarding.md). */

const TEST_TIMEOUT_MS = 10_000;

/** 测试连接 of a saved destination (`id`) or of a form not saved yet (`kind`, `config`; secrets MASK take id's). */
export async function testDestination(
    db: Db,
    box: SecretBox,
    context: SenderContext,
    input: { id?: number; kind?: string; config?: Record<string, unknown> },
) {
    const saved = input.id ? await destinationOf(db, input.id) : undefined;
    const kindName = input.kind ?? saved?.kind;
    if (!kindName) throw badRequest('请选择目的地类型');
    const kind = kindOf(kindName);
    const stored = saved ? senderConfig(saved, box) : undefined;
    const config = input.config ? await checkedConfig(kind, input.config, stored) : stored!;
    const sender = kind.open(config, context);
    const started = Date.now();
    try {
        await answered(sender.test());
        return { ok: true, message: '连接成功', ms: Date.now() - started };
    } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err), ms: Date.now() - started };
    } finally {
        await sender.close().catch(() => undefined);
    }
}

/** A test or a resend that gets no answer within TEST_TIMEOUT_MS fails with what to check. */
const answered = <T>(p: Promise<T>) =>
    pTimeout(p, {
        milliseconds: TEST_TIMEOUT_MS,
        message: new Error(`连接超时（${TEST_TIMEOUT_MS / 1000} 秒内没有应答），请检查地址、端口和网络`),
    });

interface DeadRow extends Record<string, unknown> {
    id: string | number;
    route_id: number;
    record: ForwardRecord;
    destination_id: number;
    project_id: number;
}

/** 重新投递: each dead letter sent again to its destination; sent ones are deleted, failures answered per id. */
export async function redeliver(db: Db, box: SecretBox, context: SenderContext, ids: number[]) {
    if (!ids.length) throw badRequest('请选择要重新投递的消息');
    const rows = rowsOf<DeadRow>(
        await db.execute(sql`
            SELECT l.id, l.route_id, l.record, r.destination_id, f.project_id
            FROM forward_dead_letters l JOIN forward_routes r ON r.id = l.route_id JOIN forward_flows f ON f.id = r.flow_id
            WHERE l.id = ANY(${`{${ids.join(',')}}`}::bigint[]) ORDER BY l.id`),
    ).filter((r) => inScope(Number(r.project_id)));
    const senders = new Map<number, Sender>();
    const failed: Array<{ id: number; error: string }> = [];
    let sent = 0;
    try {
        for (const row of rows) {
            const id = Number(row.id);
            try {
                const sender = await senderOf(db, box, context, senders, Number(row.destination_id));
                await answered(sender.send([row.record]));
                await db.execute(sql`DELETE FROM forward_dead_letters WHERE id = ${id}`);
                await db.execute(
                    sql`UPDATE forward_routes SET sent = sent + 1, dead = greatest(dead - 1, 0) WHERE id = ${row.route_id}`,
                );
                sent++;
            } catch (err) {
                failed.push({ id, error: err instanceof Error ? err.message : String(err) });
            }
        }
    } finally {
        for (const s of senders.values()) await s.close().catch(() => undefined);
    }
    return { sent, failed };
}

async function senderOf(db: Db, box: SecretBox, context: SenderContext, senders: Map<number, Sender>, id: number) {
    let sender = senders.get(id);
    if (!sender) {
        const row = await destinationOf(db, id);
        sender = kindOf(row.kind).open(senderConfig(row, box), context);
        senders.set(id, sender);
    }
    return sender;
}

export interface DebugInput {
    sql: string;
    topic?: string;
    payload?: unknown;
    productKey?: string;
    deviceName?: string;
    deviceId?: number;
}

/** 调试: the SQL run on a sample message, or on the device's last stored message its FROM takes. */
export async function debugFlow(db: Db, timeZone: string, input: DebugInput) {
    const flow = compiled(input.sql, timeZone);
    const message = input.deviceId ? await lastMessage(db, input.deviceId, flow.matchesTopic) : sampleMessage(input);
    const row = flow.run(message) ?? null;
    return { selected: row !== null, row, message };
}

/** A sample message: productKey and deviceName as given, else read from an Alink topic (/sys/{pk}/{dn}/...). */
function sampleMessage(input: DebugInput): FlowMessage {
    const [, pk, dn] = /^\/(?:sys\/)?([^/]+)\/([^/]+)\//.exec(input.topic ?? '') ?? [];
    const productKey = input.productKey ?? pk ?? 'a1B2c3D4e5F';
    const deviceName = input.deviceName ?? dn ?? 'device1';
    return {
        topic: input.topic ?? `/sys/${productKey}/${deviceName}/thing/event/property/post`,
        productKey,
        deviceName,
        messageId: '1',
        timestamp: Date.now(),
        payload: input.payload ?? {},
    };
}

async function lastMessage(db: Db, deviceId: number, matches: (topic: string) => boolean): Promise<FlowMessage> {
    const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`
            SELECT m.id, m.ts, m.method, m.data, p.product_key, d.device_name
            FROM device_messages m JOIN devices d ON d.id = m.device_id JOIN products p ON p.id = d.product_id
            WHERE m.device_id = ${deviceId} ORDER BY m.ts DESC, m.id DESC LIMIT 200`),
    );
    for (const r of rows) {
        const m: Omit<StoredMessage, 'projectId'> = {
            id: Number(r.id),
            ts: new Date(r.ts as string),
            method: String(r.method),
            data: (r.data as Record<string, unknown>) ?? {},
            productKey: String(r.product_key),
            deviceName: String(r.device_name),
        };
        const message = flowMessageOf(m);
        if (matches(message.topic)) return message;
    }
    throw badRequest('该设备最近 200 条消息中没有符合 FROM 主题的消息，请换一个设备或改用示例消息');
}
