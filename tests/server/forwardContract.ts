import { sql } from 'drizzle-orm';
import { rowsOf } from '../../server/db/rows';
import type { TestServer } from '../../server/testing';
import { call, json, type Answer } from './support';

type Cases = Record<string, () => Promise<Answer<unknown>>>;

/** One successful call per 数据流转 operation of openapi.yaml, for contract.test.ts (republish destinations: no broker). */
export function forwardHappyCases(server: () => TestServer): Cases {
    const s = () => server();
    const dataOf = <T>(a: Answer<unknown>) => (a.body as { data: T }).data;
    const unique = () => Math.random().toString(36).slice(2, 8);
    const projectId = async () =>
        Number(rowsOf<{ id: number }>(await s().db.execute(sql`SELECT min(id) AS id FROM projects`))[0].id);
    const destination = async () => {
        const saved = await call(
            s(),
            'POST',
            '/api/forward/destination/save',
            json({
                projectId: await projectId(),
                name: `目的地${unique()}`,
                kind: 'republish',
                config: { topicTemplate: '/${productKey}/${deviceName}/user/get', qos: 0 },
            }),
        );
        return { saved, id: dataOf<{ id: number }>(saved).id };
    };
    const flow = async () => {
        const d = await destination();
        const saved = await call(
            s(),
            'POST',
            '/api/forward/flow/save',
            json({
                projectId: await projectId(),
                name: `规则${unique()}`,
                sql: 'SELECT deviceName() AS dn, items.LightLux.value AS lux FROM "/sys/+/+/thing/event/property/post"',
                destinationIds: [d.id],
            }),
        );
        return { saved, id: dataOf<{ id: number }>(saved).id };
    };
    const deadLetter = async () => {
        const { id } = await flow();
        const [row] = rowsOf<{ id: string }>(
            await s().db.execute(sql`
                INSERT INTO forward_dead_letters (route_id, message_id, record, error, attempts)
                SELECT r.id, 1, ${JSON.stringify({ id: '1-1', productKey: 'pk', deviceName: 'dn', topic: '/t', ts: 0, flowId: id, flowName: 'f', row: { a: 1 } })}::jsonb, '拒绝', 3
                FROM forward_routes r WHERE r.flow_id = ${id} RETURNING id`),
        );
        return Number(row.id);
    };
    return {
        'GET /api/forward/destination/kinds': () => call(s(), 'GET', '/api/forward/destination/kinds'),
        'GET /api/forward/destination/list': async () => {
            await destination();
            return call(s(), 'GET', '/api/forward/destination/list?pageNumber=1&pageSize=10');
        },
        'GET /api/forward/destination/detail': async () =>
            call(s(), 'GET', `/api/forward/destination/detail?id=${(await destination()).id}`),
        'POST /api/forward/destination/save': async () => (await destination()).saved,
        'POST /api/forward/destination/delete': async () =>
            call(s(), 'POST', '/api/forward/destination/delete', json({ id: (await destination()).id })),
        'POST /api/forward/destination/test': async () =>
            call(s(), 'POST', '/api/forward/destination/test', json({ id: (await destination()).id })),
        'GET /api/forward/flow/list': async () => {
            await flow();
            return call(s(), 'GET', '/api/forward/flow/list?pageNumber=1&pageSize=10');
        },
        'GET /api/forward/flow/detail': async () =>
            call(s(), 'GET', `/api/forward/flow/detail?id=${(await flow()).id}`),
        'POST /api/forward/flow/save': async () => (await flow()).saved,
        'POST /api/forward/flow/delete': async () =>
            call(s(), 'POST', '/api/forward/flow/delete', json({ id: (await flow()).id })),
        'POST /api/forward/flow/enable': async () =>
            call(s(), 'POST', '/api/forward/flow/enable', json({ id: (await flow()).id, enabled: true })),
        'POST /api/forward/flow/debug': () =>
            call(
                s(),
                'POST',
                '/api/forward/flow/debug',
                json({
                    sql: 'SELECT items.LightLux.value AS lux FROM "/sys/+/+/thing/event/property/post"',
                    payload: { items: { LightLux: { value: 12 } } },
                }),
            ),
        'GET /api/forward/dead-letter/list': async () => {
            await deadLetter();
            return call(s(), 'GET', '/api/forward/dead-letter/list?pageNumber=1&pageSize=10');
        },
        'POST /api/forward/dead-letter/redeliver': async () =>
            call(s(), 'POST', '/api/forward/dead-letter/redeliver', json({ ids: [await deadLetter()] })),
        'POST /api/forward/dead-letter/delete': async () =>
            call(s(), 'POST', '/api/forward/dead-letter/delete', json({ ids: [await deadLetter()] })),
    };
}
