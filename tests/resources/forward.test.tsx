import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import forwardDeadLetters from '../../resources/forwardDeadLetters';
import forwardDestinations from '../../resources/forwardDestinations';
import forwardFlows from '../../resources/forwardFlows';
import type { ResourceDefinition } from '../../src/engine/types';
import { chooseOption, fail, mswServer, ok, renderDefinitions } from './helpers';

/**
 * The data forwarding screens (resources/forwardDestinations.tsx, forwardFlows.tsx, forwardDeadLetters.tsx) against
 * msw handlers answering the forward-api contract's shapes: what a person sees and what the platform receives.
 */

const DEFINITIONS = [forwardDestinations, forwardFlows, forwardDeadLetters] as ResourceDefinition[];

const PROJECTS = [
    { id: 1, projectName: '智慧园区' },
    { id: 2, projectName: '冷链' },
];

const pgDestination = {
    id: 11,
    projectId: 1,
    projectName: '智慧园区',
    name: '园区库',
    kind: 'postgres',
    kindLabel: 'PostgreSQL 数据表',
    config: {
        host: 'db.local',
        port: 5432,
        user: 'iot',
        password: '******',
        database: 'park',
        schema: 'public',
        table: 'readings',
        ssl: false,
    },
    remark: '',
    flowCount: 1,
    createTime: '2026-12-01 10:00:00',
    updateTime: '2026-12-01 10:00:00',
};
const httpDestination = {
    ...pgDestination,
    id: 12,
    name: '告警推送',
    kind: 'http',
    kindLabel: 'HTTP(S) 推送',
    config: { url: 'https://hook.example.com/iot', method: 'POST', batch: false, timeoutMs: 5000 },
    flowCount: 0,
};
const coldDestination = { ...httpDestination, id: 21, projectId: 2, projectName: '冷链', name: '冷链推送' };

const FIGURES = { selected: 120, sent: 118, failed: 2, dead: 0, dropped: 0, backlog: 3 };
const flow = {
    id: 5,
    projectId: 1,
    projectName: '智慧园区',
    name: '温度入库',
    sql: "SELECT deviceName, payload.params.temperature AS t FROM '/+/+/thing/event/property/post'",
    enabled: false,
    remark: '',
    destinationIds: [11],
    destinations: [{ id: 11, name: '园区库', kind: 'postgres', kindLabel: 'PostgreSQL 数据表' }],
    createTime: '2026-12-01 10:00:00',
    updateTime: '2026-12-01 10:00:00',
    figures: {
        ...FIGURES,
        selectedPerSecond: 0,
        sentPerSecond: 0,
        lastError: '连接超时',
        lastErrorTime: '12-06 09:00',
    },
};

const IN_USE = '目的地正被流转规则使用：温度入库，请先从这些规则中移除';

interface Sent {
    path: string;
    body: Record<string, unknown>;
}

describe('data forwarding screens', () => {
    let sent: Sent[];
    let flows: Array<typeof flow>;
    let saveFailure: string | undefined;

    const posted = (path: string) => sent.filter((s) => s.path === path).map((s) => s.body);

    beforeEach(() => {
        sent = [];
        flows = [{ ...flow }];
        saveFailure = undefined;
        const record = (path: string) =>
            http.post(`/api/forward/${path}`, async ({ request }) => {
                const body = (await request.json()) as Record<string, unknown>;
                sent.push({ path, body });
                return answer(path, body);
            });
        const answer = (path: string, body: Record<string, unknown>) => {
            if (path === 'flow/save' && saveFailure) return fail(saveFailure);
            if (path === 'destination/delete') return fail(IN_USE);
            if (path === 'destination/test') return ok({ ok: false, message: '连接被拒绝：db.local:5432', ms: 12 });
            if (path === 'flow/enable') {
                flows = flows.map((f) => (f.id === body.id ? { ...f, enabled: !!body.enabled } : f));
                return ok(null);
            }
            if (path === 'flow/debug') {
                return ok({
                    selected: true,
                    row: { deviceName: 'device1', temperature: 26.5 },
                    message: { topic: body.topic, productKey: 'a1demo', deviceName: 'device1', timestamp: 1 },
                });
            }
            if (path === 'dead-letter/redeliver') return ok({ sent: (body.ids as unknown[]).length, failed: [] });
            return ok({ id: 99, ...body });
        };
        mswServer.use(
            http.get('/api/project/listAll', () => ok({ list: PROJECTS })),
            http.get('/api/forward/destination/list', ({ request }) => {
                const projectId = new URL(request.url).searchParams.get('projectId');
                const all = [pgDestination, httpDestination, coldDestination];
                const records = projectId ? all.filter((d) => String(d.projectId) === projectId) : all;
                return ok({ records, total: records.length });
            }),
            http.get('/api/forward/destination/detail', () => ok(pgDestination)),
            http.get('/api/forward/flow/list', () => ok({ records: flows, total: flows.length })),
            http.get('/api/forward/dead-letter/list', () =>
                ok({
                    records: [1, 2, 3].map((id) => ({
                        id,
                        flowId: 5,
                        flowName: '温度入库',
                        destinationId: 11,
                        destinationName: '园区库',
                        messageId: `m${id}`,
                        productKey: 'a1demo',
                        deviceName: `device${id}`,
                        row: { deviceName: `device${id}`, t: id },
                        error: '列 t 不存在',
                        attempts: 3,
                        createTime: '2026-12-06 09:00:00',
                    })),
                    total: 3,
                }),
            ),
            ...[
                'destination/save',
                'destination/test',
                'destination/delete',
                'flow/save',
                'flow/enable',
                'flow/debug',
                'dead-letter/redeliver',
                'dead-letter/delete',
            ].map(record),
        );
    });

    const dialogNamed = (name: string | RegExp) => screen.findByRole('dialog', { name });
    const rowOf = async (text: string) => (await screen.findByText(text)).closest('tr')!;
    const type = (scope: HTMLElement, name: RegExp, value: string) =>
        fireEvent.change(within(scope).getByRole('textbox', { name }), { target: { value } });
    const confirmYes = async () =>
        fireEvent.click(within(await dialogNamed('提示')).getByRole('button', { name: '确定' }));

    it('shows the fields of the chosen kind and sends config with them', async () => {
        renderDefinitions(DEFINITIONS, '/forward/destination');
        expect(await screen.findByText('园区库')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '新建目的地' }));
        const dialog = await dialogNamed('新建目的地');
        // HTTP first: its address, not a database's host.
        expect(within(dialog).getByRole('textbox', { name: /推送地址/ })).toBeInTheDocument();
        expect(within(dialog).queryByRole('textbox', { name: /主机地址/ })).not.toBeInTheDocument();

        type(dialog, /^名称/, '园区库2');
        await chooseOption(await within(dialog).findByRole('combobox', { name: /所属项目/ }), '智慧园区');
        await chooseOption(within(dialog).getByRole('combobox', { name: /目的地类型/ }), 'PostgreSQL 数据表');
        expect(within(dialog).queryByRole('textbox', { name: /推送地址/ })).not.toBeInTheDocument();
        type(dialog, /主机地址/, 'pg.local');
        type(dialog, /^用户名/, 'writer');
        type(dialog, /数据库名/, 'park');
        type(dialog, /^表名/, 'readings');
        fireEvent.change(within(dialog).getByLabelText(/^密码/), { target: { value: 's3cret' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        expect(posted('destination/save')).toEqual([
            {
                projectId: 1,
                name: '园区库2',
                kind: 'postgres',
                remark: '',
                config: {
                    host: 'pg.local',
                    port: 5432,
                    user: 'writer',
                    password: 's3cret',
                    database: 'park',
                    schema: 'public',
                    table: 'readings',
                    columns: [],
                    ssl: false,
                },
            },
        ]);
    });

    it("sends a secret left as '******' back unchanged, with the kind locked", async () => {
        renderDefinitions(DEFINITIONS, '/forward/destination');
        fireEvent.click(within(await rowOf('园区库')).getByRole('button', { name: '编辑 园区库' }));
        const dialog = await dialogNamed('编辑目的地');
        const table = await within(dialog).findByRole('textbox', { name: /^表名/ });
        expect(table).toHaveValue('readings');
        expect(within(dialog).getByLabelText(/^密码/)).toHaveValue('******');
        fireEvent.change(table, { target: { value: 'readings_v2' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        const [body] = posted('destination/save');
        expect(body).toMatchObject({ id: 11, kind: 'postgres', projectId: 1 });
        expect(body.config).toMatchObject({ password: '******', table: 'readings_v2', host: 'db.local' });
    });

    it("测试连接 shows the server's message", async () => {
        renderDefinitions(DEFINITIONS, '/forward/destination');
        fireEvent.click(within(await rowOf('园区库')).getByRole('button', { name: '测试连接 园区库' }));
        const dialog = await dialogNamed('测试连接：园区库');
        // The saved configuration is shown once loaded.
        expect(await within(dialog).findByRole('textbox', { name: /主机地址/ })).toHaveValue('db.local');
        fireEvent.click(within(dialog).getByRole('button', { name: '测试连接' }));
        expect(await within(dialog).findByText('连接失败（12 ms）')).toBeInTheDocument();
        expect(within(dialog).getByText('连接被拒绝：db.local:5432')).toBeInTheDocument();
        const [body] = posted('destination/test');
        // The saved configuration, its secret as the mask the server fills in from the stored one.
        expect(body).toMatchObject({ id: 11, kind: 'postgres' });
        expect(body.config).toMatchObject({ host: 'db.local', table: 'readings', password: '******' });
    });

    it('测试配置 tries a configuration before it is saved', async () => {
        renderDefinitions(DEFINITIONS, '/forward/destination');
        fireEvent.click(await screen.findByRole('button', { name: '测试配置' }));
        const dialog = await dialogNamed('测试目的地配置');
        await chooseOption(within(dialog).getByRole('combobox', { name: /目的地类型/ }), 'MQTT 桥接');
        type(dialog, /服务器地址/, 'mqtt://broker.local:1883');
        type(dialog, /主题模板/, '/fwd/${deviceName}');
        fireEvent.click(within(dialog).getByRole('button', { name: '测试连接' }));
        expect(await within(dialog).findByText('连接被拒绝：db.local:5432')).toBeInTheDocument();
        expect(posted('destination/test')).toEqual([
            {
                kind: 'mqtt',
                config: {
                    url: 'mqtt://broker.local:1883',
                    password: '',
                    topicTemplate: '/fwd/${deviceName}',
                    qos: 1,
                    retain: false,
                },
            },
        ]);
    });

    it("deletes only after the confirmation and shows the server's refusal", async () => {
        renderDefinitions(DEFINITIONS, '/forward/destination');
        fireEvent.click(within(await rowOf('园区库')).getByRole('button', { name: '删除 园区库' }));
        const confirm = await dialogNamed('提示');
        expect(within(confirm).getByText('它正被 1 条流转规则使用。')).toBeInTheDocument();
        expect(posted('destination/delete')).toEqual([]);
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText(IN_USE)).toBeInTheDocument();
        expect(posted('destination/delete')).toEqual([{ id: 11 }]);
        expect(screen.getByText('园区库')).toBeInTheDocument();
    });

    it("sends the flow's SQL and destinationIds; a 400 on save shows the server's msg in the form", async () => {
        saveFailure = 'SQL 语法错误（第1行第15列）：缺少 FROM';
        renderDefinitions(DEFINITIONS, '/forward/flow');
        expect(await screen.findByText('温度入库')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '新建流转规则' }));
        const dialog = await dialogNamed('新建流转规则');
        type(dialog, /^规则名称/, '冷链转发');
        await chooseOption(await within(dialog).findByRole('combobox', { name: /所属项目/ }), '冷链');
        type(dialog, /^SQL/, "SELECT * FROM '/a1/+/thing/event/property/post'");
        // Only the chosen project's destinations are offered.
        fireEvent.click(await within(dialog).findByRole('checkbox', { name: /冷链推送/ }));
        expect(within(dialog).queryByRole('checkbox', { name: /园区库/ })).not.toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

        // Said under the SQL input, in the dialog that stays open.
        const sql = within(dialog).getByRole('textbox', { name: /^SQL/ });
        await waitFor(() =>
            expect(sql).toHaveAccessibleDescription(expect.stringContaining('SQL 语法错误（第1行第15列）：缺少 FROM')),
        );
        expect(screen.getByRole('dialog', { name: '新建流转规则' })).toBeInTheDocument();
        expect(posted('flow/save')).toEqual([
            {
                projectId: 2,
                name: '冷链转发',
                sql: "SELECT * FROM '/a1/+/thing/event/property/post'",
                destinationIds: [21],
                remark: '',
            },
        ]);
    });

    it('lists the figures; 启动 calls /flow/enable with enabled true after the confirmation', async () => {
        renderDefinitions(DEFINITIONS, '/forward/flow');
        const row = await rowOf('温度入库');
        expect(within(row).getByText('已停止')).toBeInTheDocument();
        expect(within(row).getByText('园区库')).toBeInTheDocument();
        expect(within(row).getByText('118')).toBeInTheDocument();
        expect(within(row).getByText('12-06 09:00 连接超时')).toBeInTheDocument();
        fireEvent.click(within(row).getByRole('button', { name: '启动 温度入库' }));
        await dialogNamed('提示');
        expect(posted('flow/enable')).toEqual([]);
        await confirmYes();
        expect(await screen.findByText('已启动')).toBeInTheDocument();
        expect(posted('flow/enable')).toEqual([{ id: 5, enabled: true }]);
        expect(await within(await rowOf('温度入库')).findByText('运行中')).toBeInTheDocument();
    });

    it('the debug dialog runs the SQL on the sample and shows the row', async () => {
        renderDefinitions(DEFINITIONS, '/forward/flow');
        fireEvent.click(within(await rowOf('温度入库')).getByRole('button', { name: '调试 温度入库' }));
        const dialog = await dialogNamed('调试：温度入库');
        expect(within(dialog).getByRole('textbox', { name: /^SQL/ })).toHaveValue(flow.sql);
        fireEvent.click(within(dialog).getByRole('button', { name: '运行' }));
        const result = await within(dialog).findByRole('status', { name: '已选中，输出行：' });
        expect(JSON.parse(result.querySelector('pre')!.textContent!)).toEqual({
            deviceName: 'device1',
            temperature: 26.5,
        });
        const [body] = posted('flow/debug');
        expect(body).toMatchObject({
            sql: flow.sql,
            topic: '/sys/a1demo/device1/thing/event/property/post',
            payload: { method: 'thing.event.property.post', params: { temperature: 26.5 } },
        });
    });

    it('dead letters: 重新投递 sends the selected ids after the confirmation', async () => {
        renderDefinitions(DEFINITIONS, '/forward/deadLetter');
        for (const name of ['a1demo/device1', 'a1demo/device3']) {
            fireEvent.click(within(await rowOf(name)).getByRole('checkbox'));
        }
        fireEvent.click(await screen.findByRole('button', { name: '重新投递' }));
        await confirmYes();
        expect(await screen.findByText('已重新投递 2 条')).toBeInTheDocument();
        expect(posted('dead-letter/redeliver')).toEqual([{ ids: [1, 3] }]);
        await waitFor(() => expect(posted('dead-letter/delete')).toEqual([]));
    });
});
