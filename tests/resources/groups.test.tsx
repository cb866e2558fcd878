import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projects, scenes } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { mswServer, platformHandler, renderApp, searchParam } from './helpers';

/**
 * The group screens against the reference platform in-process (in-memory PGlite): screen, data provider, contract
 * and server in one. Each test works in a project of its own, so its groups are its own.
 */

interface Group {
    groupId: number;
    groupName: string;
    level: number;
}

let platform: TestServer;
let serial = 0;

beforeAll(async () => {
    platform = await createTestServer({ seed: false });
});
afterAll(() => platform.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

async function post<T>(path: string, values: Record<string, string | number>): Promise<T> {
    const res = await platform.fetch(path, {
        method: 'POST',
        body: new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)])),
    });
    const body = (await res.json()) as { returnCode?: string; code?: number; data: T };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.data;
}

async function newProject(): Promise<{ code: string; name: string }> {
    serial += 1;
    const [scene] = await platform.db.select().from(scenes).limit(1);
    const project = { code: `GP${serial}`, name: `分组测试项目${serial}`, classId: scene.id };
    await platform.db.insert(projects).values(project);
    return project;
}

const group = (projectCode: string, name: string, pid = 0) =>
    post<Group>('/api/group/save', { projectCode, pid, name, remark: '' });

async function threeLevels(projectCode: string, prefix: string) {
    const l1 = await group(projectCode, `${prefix}一级`);
    const l2 = await group(projectCode, `${prefix}二级`, l1.groupId);
    const l3 = await group(projectCode, `${prefix}三级`, l2.groupId);
    return { l1, l2, l3 };
}

const dialogNamed = (name: string) => screen.findByRole('dialog', { name });
/** The first screen of a test loads its route chunks: give it longer than the default wait. */
const SLOW = { timeout: 30_000 };

describe('/groups', () => {
    // First in the file: the platform is empty, so 6 groups put the oldest alone on page 2.
    it('deletes after the confirmation 是否删除此应用？, and steps back from an emptied page', async () => {
        const project = await newProject();
        for (let i = 0; i < 6; i++) await group(project.code, `删除组_${i}`);
        renderApp('/groups?page=2&perPage=5');
        const lonely = await screen.findByText('删除组_0', undefined, SLOW);
        expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(2);
        fireEvent.click(within(lonely.closest('tr')!).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog');
        expect(within(confirm).getByText('是否删除此应用？')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(searchParam('page')).toBe('1'));
        expect(await screen.findByText('删除组_5')).toBeInTheDocument();
        await waitFor(() => expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(6));
        expect(screen.queryByText('删除组_0')).not.toBeInTheDocument();
    });

    it('lists 5 a page; size changer, quick jumper and page live in the URL', async () => {
        const project = await newProject();
        // Newest first: 分页组_7 … 分页组_1, then the 5 groups the delete test left.
        for (let i = 1; i <= 7; i++) await group(project.code, `分页组_${i}`);
        renderApp('/groups');
        expect(await screen.findByText('分页组_7', undefined, SLOW)).toBeInTheDocument();
        const table = screen.getByRole('table');
        expect(within(table).getAllByRole('row')).toHaveLength(1 + 5);
        for (const header of ['分组ID', '分组名称', '添加时间', '操作']) {
            expect(within(table).getByText(header)).toBeInTheDocument();
        }

        // Size changer: 5, 10, 20.
        fireEvent.mouseDown(screen.getByRole('combobox', { name: '每页条数' }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['5 条/页', '10 条/页', '20 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '10 条/页' }));
        await waitFor(() => expect(searchParam('perPage')).toBe('10'));
        await waitFor(() => expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(1 + 10));
        expect(screen.getByText('共 12 条')).toBeInTheDocument();

        // Back to 5 a page, then the quick jumper to page 2.
        fireEvent.mouseDown(screen.getByRole('combobox', { name: '每页条数' }));
        fireEvent.click(within(await screen.findByRole('listbox')).getByRole('option', { name: '5 条/页' }));
        await waitFor(() => expect(searchParam('perPage')).toBe('5'));
        const jumper = screen.getByRole('textbox', { name: '跳至页码' });
        await userEvent.type(jumper, '2{Enter}');
        await waitFor(() => expect(searchParam('page')).toBe('2'));
        expect(await screen.findByText('分页组_2')).toBeInTheDocument();
        expect(screen.queryByText('分页组_7')).not.toBeInTheDocument();
    });

    it('refuses a save without parent and name, speaks the three name rules, and creates under a lazily loaded node', async () => {
        const project = await newProject();
        const { l1, l2, l3 } = await threeLevels(project.code, '树');
        renderApp('/groups');
        fireEvent.click(await screen.findByRole('button', { name: '新建分组' }, SLOW));
        const dialog = await dialogNamed('新建分组');

        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请选择父组!')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入分组名称!')).toBeInTheDocument();

        const name = within(dialog).getByRole('textbox', { name: /分组名称/ });
        await userEvent.type(name, 'abc');
        expect(await within(dialog).findByText('分组名称长度限制4~30，中文算2位')).toBeInTheDocument();
        await userEvent.type(name, '-d');
        expect(await within(dialog).findByText('分组名称支持中文、英文字母、数字和下划线')).toBeInTheDocument();
        await userEvent.clear(name);
        expect(await within(dialog).findByText('分组名称不能为空')).toBeInTheDocument();

        // The project, then the tree: its roots; children only after expanding (300 ms, with a loading row).
        fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: /所属项目/ }));
        fireEvent.click(within(await screen.findByRole('listbox')).getByRole('option', { name: project.name }));
        fireEvent.click(within(dialog).getByRole('textbox', { name: /父级分组/ }));
        const tree = await screen.findByRole('tree', { name: '父级分组' });
        expect(within(tree).getByRole('treeitem', { name: '无（作为一级分组）' })).toBeInTheDocument();
        expect(await within(tree).findByRole('treeitem', { name: l1.groupName })).toBeInTheDocument();
        expect(within(tree).queryByRole('treeitem', { name: l2.groupName })).not.toBeInTheDocument();
        fireEvent.click(within(tree).getByRole('button', { name: `展开 ${l1.groupName}` }));
        expect(within(tree).getByText('加载中…')).toBeInTheDocument();
        expect(await within(tree).findByRole('treeitem', { name: l2.groupName })).toBeInTheDocument();
        fireEvent.click(within(tree).getByRole('button', { name: `展开 ${l2.groupName}` }));
        const leaf = await within(tree).findByRole('treeitem', { name: l3.groupName });
        // Level 3: shown, not a parent.
        expect(leaf).toHaveAttribute('aria-disabled', 'true');
        expect(within(leaf).getByText('第三级分组，不能作为父组')).toBeInTheDocument();
        expect(within(leaf).queryByRole('button', { name: /展开/ })).not.toBeInTheDocument();
        fireEvent.click(within(tree).getByText(l2.groupName));
        await waitFor(() => expect(screen.queryByRole('tree')).not.toBeInTheDocument());
        expect(within(dialog).getByRole('textbox', { name: /父级分组/ })).toHaveValue(l2.groupName);
        expect(within(dialog).queryByText('请选择父组!')).not.toBeInTheDocument();

        await userEvent.type(name, '新的三级分组');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建分组成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(await screen.findByText('新的三级分组')).toBeInTheDocument();
        const children = (await (await platform.fetch(`/api/group/children?parentId=${l2.groupId}`)).json()) as {
            data: { list: Group[] };
        };
        expect(children.data.list.map((g) => [g.groupName, g.level])).toContainEqual(['新的三级分组', 3]);
    });

    it('creates a level-1 group through the root option', async () => {
        const project = await newProject();
        renderApp('/groups');
        fireEvent.click(await screen.findByRole('button', { name: '新建分组' }, SLOW));
        const dialog = await dialogNamed('新建分组');
        fireEvent.mouseDown(await within(dialog).findByRole('combobox', { name: /所属项目/ }));
        fireEvent.click(within(await screen.findByRole('listbox')).getByRole('option', { name: project.name }));
        fireEvent.click(within(dialog).getByRole('textbox', { name: /父级分组/ }));
        fireEvent.click(within(await screen.findByRole('tree')).getByText('无（作为一级分组）'));
        await userEvent.type(within(dialog).getByRole('textbox', { name: /分组名称/ }), '顶层分组_甲');
        await userEvent.type(within(dialog).getByRole('textbox', { name: /描述/ }), '<b>不是标记</b>');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建分组成功')).toBeInTheDocument();
        const row = (await screen.findByText('顶层分组_甲')).closest('tr')!;
        fireEvent.click(within(row).getByText('查看'));
        expect(await screen.findByRole('tab', { name: '分组信息' })).toBeInTheDocument();
        // A remark is text, never markup.
        expect(screen.getByText('<b>不是标记</b>')).toBeInTheDocument();
    });
});

describe('group detail', () => {
    it('shows 子分组 below level 3 only; edits the description; the breadcrumb goes back', async () => {
        const project = await newProject();
        const { l1 } = await threeLevels(project.code, '详情');
        renderApp(`/groupDetail/${l1.groupId}`);
        expect(await screen.findByRole('heading', { name: l1.groupName }, SLOW)).toBeInTheDocument();
        expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['分组信息', '设备列表', '子分组']);
        fireEvent.click(screen.getByRole('tab', { name: '子分组' }));
        await waitFor(() => expect(searchParam('tab')).toBe('children'));
        expect(await screen.findByText('详情二级')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('tab', { name: '分组信息' }));
        fireEvent.click(await screen.findByRole('button', { name: '编辑' }));
        const dialog = await dialogNamed('编辑分组');
        await userEvent.type(within(dialog).getByRole('textbox', { name: '描述' }), '一级的描述');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(await screen.findByText('一级的描述')).toBeInTheDocument();

        fireEvent.click(
            within(await screen.findByRole('navigation', { name: 'breadcrumb' })).getByRole('link', {
                name: '分组管理',
            }),
        );
        expect(await screen.findByRole('button', { name: '新建分组' })).toBeInTheDocument();
    });

    it('hides 子分组 at level 3 (also when the URL asks for it)', async () => {
        const project = await newProject();
        const { l1, l2, l3 } = await threeLevels(project.code, '叶子');
        renderApp(`/groups/detail?groupId=${l3.groupId}&tab=children`);
        expect(await screen.findByRole('heading', { name: l3.groupName }, SLOW)).toBeInTheDocument();
        expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['分组信息', '设备列表']);
        expect(screen.getByRole('tab', { name: '分组信息' })).toHaveAttribute('aria-selected', 'true');
        expect(
            screen.getByText(`${l1.groupName} / ${l2.groupName} / ${l3.groupName}`, { selector: 'p' }),
        ).toBeInTheDocument();
    });

    it('creates a child group with project and parent fixed', async () => {
        const project = await newProject();
        const root = await group(project.code, '子分组父级');
        renderApp(`/groups/detail?groupId=${root.groupId}&tab=children`);
        expect(await screen.findByText('暂无子分组', undefined, SLOW)).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '新建子分组' }));
        const dialog = await dialogNamed('新建子分组');
        expect(within(dialog).getByRole('textbox', { name: /父级分组/ })).toHaveValue('子分组父级');
        expect(within(dialog).getByRole('textbox', { name: /父级分组/ })).toBeDisabled();
        await userEvent.type(within(dialog).getByRole('textbox', { name: /分组名称/ }), '新建的子分组');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建分组成功')).toBeInTheDocument();
        expect(await screen.findByText('新建的子分组')).toBeInTheDocument();
    });
});

describe("a group's devices", () => {
    async function productWithDevices(count: number) {
        serial += 1;
        const tree = (await (await platform.fetch('/api/product/list-category')).json()) as {
            data: Array<{ id: number; children?: unknown[] }>;
        };
        let node = tree.data[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        const product = await post<{ productId: number; productKey: string; productName: string }>(
            '/api/product/save',
            {
                productName: `分组设备产品${serial}`,
                nodeType: 0,
                gatewayType: 0,
                categoryId: node.id,
                networkType: 5,
                dataType: 0,
            },
        );
        const devices: Array<{ deviceId: number; deviceName: string }> = [];
        for (let i = 1; i <= count; i++) {
            const res = await platform.fetch('/api/device/save', {
                method: 'POST',
                body: new URLSearchParams({ productKey: product.productKey, deviceName: `gdev_${serial}_${i}` }),
            });
            devices.push(((await res.json()) as { data: { deviceId: number; deviceName: string } }).data);
        }
        return { product, devices };
    }

    it('adds candidates of a product, shows the totals, removes one after confirming', async () => {
        const project = await newProject();
        const g = await group(project.code, '设备分组甲');
        const { product, devices } = await productWithDevices(3);
        renderApp(`/groups/detail?groupId=${g.groupId}&tab=devices`);
        expect(await screen.findByText('该分组暂无设备', undefined, SLOW)).toBeInTheDocument();

        fireEvent.click(screen.getAllByRole('button', { name: '添加设备' })[0]);
        const dialog = await dialogNamed('添加设备');
        expect(within(dialog).getByRole('button', { name: '确定' })).toBeDisabled();
        fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: /产品/ }));
        fireEvent.click(
            await within(await screen.findByRole('listbox')).findByRole('option', { name: product.productName }),
        );
        const candidates = await within(dialog).findByRole('table', { name: '可添加的设备' });
        expect(within(candidates).getAllByRole('row')).toHaveLength(1 + 3);
        fireEvent.click(within(dialog).getByRole('checkbox', { name: `选择 ${devices[0].deviceName}` }));
        fireEvent.click(within(dialog).getByRole('checkbox', { name: `选择 ${devices[2].deviceName}` }));
        expect(within(dialog).getByText('已选择 2 个设备')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();

        const table = await screen.findByRole('table', { name: '分组设备' });
        expect(within(table).getAllByRole('row')).toHaveLength(1 + 2);
        expect(within(screen.getByRole('group', { name: '设备统计' })).getByText('2')).toBeInTheDocument();

        // The candidates now leave out the two in the group.
        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const again = await dialogNamed('添加设备');
        fireEvent.mouseDown(within(again).getByRole('combobox', { name: /产品/ }));
        fireEvent.click(
            await within(await screen.findByRole('listbox')).findByRole('option', { name: product.productName }),
        );
        const left = await within(again).findByRole('table', { name: '可添加的设备' });
        // The dialog may first show the candidates it loaded before; the fresh answer follows.
        await waitFor(() => expect(within(left).getAllByRole('row')).toHaveLength(1 + 1));
        expect(within(left).getByText(devices[1].deviceName)).toBeInTheDocument();
        fireEvent.click(within(again).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

        const row = within(table).getByText(devices[0].deviceName).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '移除' }));
        const confirm = await screen.findByRole('dialog');
        expect(
            within(confirm).getByText(`确定将设备 ${devices[0].deviceName} 移出分组「设备分组甲」吗？`),
        ).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText(devices[0].deviceName)).not.toBeInTheDocument());
        expect(screen.getByText(devices[2].deviceName)).toBeInTheDocument();
        const answer = (await (await platform.fetch(`/api/groups/devices?groupId=${g.groupId}`)).json()) as {
            data: { deviceTotal: number };
        };
        expect(answer.data.deviceTotal).toBe(1);
    });

    it('filters by a device tag through the label dialog', async () => {
        const project = await newProject();
        const g = await group(project.code, '标签分组乙');
        const { devices } = await productWithDevices(2);
        await post('/api/groups/addDevices', {
            groupId: g.groupId,
            deviceList: devices.map((d) => d.deviceId).join(','),
        });
        const { tags } = await import('../../server/db/schema');
        await platform.db.insert(tags).values({ type: 2, objectId: devices[1].deviceId, key: 'floor', value: '3' });
        renderApp(`/groups/detail?groupId=${g.groupId}&tab=devices`);
        expect(await screen.findByText(devices[0].deviceName, undefined, SLOW)).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: '标签筛选' }));
        const dialog = await dialogNamed('标签筛选');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入标签Key')).toBeInTheDocument();
        await userEvent.type(within(dialog).getByRole('textbox', { name: /标签Key/ }), 'floor');
        await userEvent.type(within(dialog).getByRole('textbox', { name: /标签Value/ }), '3');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(searchParam('tagKey')).toBe('floor'));
        await waitFor(() => expect(screen.queryByText(devices[0].deviceName)).not.toBeInTheDocument());
        expect(screen.getByText(devices[1].deviceName)).toBeInTheDocument();
        expect(screen.getByText('标签：floor = 3')).toBeInTheDocument();
    });
});
