import type { TestServer } from '../../server/testing';
import { call, form, json, type Answer } from './support';
import { lampProduct } from './telemetrySupport';

/** One successful call per rule, alert-rule and alert-log operation of openapi.yaml, for contract.test.ts. */
export function ruleHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    const s = () => server();
    const data = (a: Answer<unknown>) => (a.body as { data: Record<string, unknown> }).data;
    const body = async (type: 'rule' | 'alert') => {
        const { productKey } = await lampProduct(s());
        const base = {
            name: '功率过高',
            productKey,
            enabled: false,
            triggers: [{ type: 'property', identifier: 'ActivePower' }],
            conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>', value: 1500 }],
        };
        return type === 'rule'
            ? {
                  ...base,
                  actions: [
                      { type: 'alert', level: 2, content: '${deviceName} 功率 ${value}' },
                      { type: 'setProperty', identifier: 'LightSwitch', value: 0 },
                  ],
              }
            : { ...base, level: 2, content: '${deviceName} 功率 ${value}' };
    };
    const rule = async () => Number(data(await call(s(), 'POST', '/api/rule/save', json(await body('rule')))).id);
    const alertRule = async () =>
        Number(data(await call(s(), 'POST', '/api/alert-rule/save', json(await body('alert')))).id);
    const rows = async (id: number) =>
        data(await call(s(), 'GET', `/api/rule/detail?id=${id}`)) as Record<string, Array<{ id: string }>>;
    const channel = async () =>
        Number(
            data(
                await call(
                    s(),
                    'POST',
                    '/api/alert-rule/channel/save',
                    json({ name: '钉钉群', type: 'dingtalk', url: 'http://127.0.0.1:9/robot/send' }),
                ),
            ).id,
        );
    return {
        'GET /api/rule/list': async () => {
            await rule();
            return call(s(), 'GET', '/api/rule/list?pageNumber=1&pageSize=10');
        },
        'GET /api/rule/detail': async () => call(s(), 'GET', `/api/rule/detail?id=${await rule()}`),
        'POST /api/rule/save': async () => call(s(), 'POST', '/api/rule/save', json(await body('rule'))),
        'POST /api/rule/delete': async () => call(s(), 'POST', '/api/rule/delete', form({ id: await rule() })),
        'POST /api/rule/enable': async () =>
            call(s(), 'POST', '/api/rule/enable', form({ id: await rule(), enabled: 'false' })),
        'POST /api/rule/trigger/delete': async () => {
            const id = Number(
                data(
                    await call(
                        s(),
                        'POST',
                        '/api/rule/save',
                        json({
                            ...(await body('rule')),
                            triggers: [{ type: 'property' }, { type: 'status', status: 'online' }],
                        }),
                    ),
                ).id,
            );
            return call(
                s(),
                'POST',
                '/api/rule/trigger/delete',
                json({ ruleId: id, id: (await rows(id)).triggers[1].id }),
            );
        },
        'POST /api/rule/condition/delete': async () => {
            const id = await rule();
            return call(
                s(),
                'POST',
                '/api/rule/condition/delete',
                json({ ruleId: id, id: (await rows(id)).conditions[0].id }),
            );
        },
        'POST /api/rule/action/delete': async () => {
            const id = await rule();
            return call(
                s(),
                'POST',
                '/api/rule/action/delete',
                json({ ruleId: id, id: (await rows(id)).actions[1].id }),
            );
        },
        'GET /api/rule/model': async () =>
            call(s(), 'GET', `/api/rule/model?productKey=${(await lampProduct(s())).productKey}`),
        'GET /api/rule/log/list': () => call(s(), 'GET', '/api/rule/log/list?pageNumber=1&pageSize=10'),
        'GET /ms6/rule/chain/list': async () => {
            await rule();
            return call(s(), 'GET', '/ms6/rule/chain/list?pageNumber=1&pageSize=10');
        },
        'GET /ms6/rule/log/list': () => call(s(), 'GET', '/ms6/rule/log/list?pageNumber=1&pageSize=10'),
        'GET /api/alert-rule/list': async () => {
            await alertRule();
            return call(s(), 'GET', '/api/alert-rule/list?pageNumber=1&pageSize=10');
        },
        'GET /api/alert-rule/detail': async () => call(s(), 'GET', `/api/alert-rule/detail?id=${await alertRule()}`),
        'POST /api/alert-rule/save': async () =>
            call(
                s(),
                'POST',
                '/api/alert-rule/save',
                json({ ...(await body('alert')), channelIds: [await channel()] }),
            ),
        'POST /api/alert-rule/delete': async () =>
            call(s(), 'POST', '/api/alert-rule/delete', form({ id: await alertRule() })),
        'POST /api/alert-rule/enable': async () =>
            call(s(), 'POST', '/api/alert-rule/enable', form({ id: await alertRule(), enabled: 'true' })),
        'GET /api/alert-rule/channel/list': async () => {
            await channel();
            return call(s(), 'GET', '/api/alert-rule/channel/list');
        },
        'POST /api/alert-rule/channel/save': () =>
            call(
                s(),
                'POST',
                '/api/alert-rule/channel/save',
                form({
                    name: '值班邮箱',
                    type: 'email',
                    host: 'smtp.example.com',
                    port: 25,
                    from: 'iot@example.com',
                    to: 'duty@example.com',
                }),
            ),
        'POST /api/alert-rule/channel/delete': async () =>
            call(s(), 'POST', '/api/alert-rule/channel/delete', form({ id: await channel() })),
        'GET /api/alert-log/list': () => call(s(), 'GET', '/api/alert-log/list?pageNumber=1&pageSize=10&status=0'),
        'GET /api/alert-log/detail': async () => {
            const list = data(await call(s(), 'GET', '/api/alert-log/list?pageSize=1')) as {
                records: Array<{ id: number }>;
            };
            return call(s(), 'GET', `/api/alert-log/detail?id=${list.records[0].id}`);
        },
        'POST /api/alert-log/handle': async () => {
            const list = data(await call(s(), 'GET', '/api/alert-log/list?pageSize=2&status=0')) as {
                records: Array<{ id: number }>;
            };
            return call(
                s(),
                'POST',
                '/api/alert-log/handle',
                json({ ids: list.records.map((r) => r.id), remark: '已处理' }),
            );
        },
    };
}
