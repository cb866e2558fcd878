import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import {
    bodyRows,
    chooseOption,
    dismissNotification,
    mswServer,
    platformHandler,
    renderApp,
    searchParam,
} from './helpers';

/**
 * /programList against the reference platform in-process (server/testing.ts: in-memory PGlite, demo seed): the
 * scene filter, the name search and the pager with their URL state, the create / edit dialog with each message,
 * 场景管理, and delete with the number of devices that lose their project.
 */

interface Answer<T> {
    code: number;
    msg: string;
    data: T;
}

interface ProjectRow {
    id: number;
    name: string;
    code: string;
    classId: number;
    sceneName: string;
    remark: string | null;
    deviceCount: number;
}

interface Scene {
    id: number;
    name: string;
    projectCount: number;
}

const submit = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
const rowOf = (text: string) => screen.getByText(text).closest('tr')!;
const rowNames = () => bodyRows().map((r) => r.querySelector('td a')?.textContent ?? '');

describe('project list screen against the platform', () => {
    let platform: TestServer;
    let serial = 0;

    beforeAll(async () => {
        platform = await createTestServer({ seed: true });
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    async function json<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
        return (await platform.fetch(path, init)).json() as Promise<Answer<T>>;
    }

    async function scenes(): Promise<Scene[]> {
        return (await json<{ list: Scene[] }>('/api/project/sceneList')).data.list;
    }

    async function sceneId(name: string): Promise<number> {
        const scene = (await scenes()).find((s) => s.name === name);
        expect(scene).toBeDefined();
        return scene!.id;
    }

    async function newProject(name: string, scene = '智慧办公', remark = ''): Promise<ProjectRow> {
        const body = new URLSearchParams({ name, classId: String(await sceneId(scene)), remark });
        const answer = await json<ProjectRow>('/api/project/save', { method: 'POST', body });
        expect(answer.code).toBe(200);
        return answer.data;
    }

    async function projectsNamed(name: string): Promise<ProjectRow[]> {
        const answer = await json<{ records: ProjectRow[] }>(
            `/api/project/list?page=1&size=100&name=${encodeURIComponent(name)}`,
        );
        return answer.data.records;
    }

    /** A product and `count` devices in it, bound to the project. */
    async function bindDevices(projectId: number, count: number): Promise<number[]> {
        const tree = (await json<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category')).data;
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        serial += 1;
        const product = await json<{ productKey: string }>('/api/product/save', {
            method: 'POST',
            body: new URLSearchParams({
                productName: `项目测试产品${serial}_${Date.now() % 10000}`,
                nodeType: '0',
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            }),
        });
        expect(product.code).toBe(200);
        const ids: number[] = [];
        for (let i = 0; i < count; i++) {
            const body = new URLSearchParams({
                productKey: product.data.productKey,
                deviceName: `proj_dev_${serial}_${i}`,
            });
            const device = await json<{ deviceId: number }>('/api/device/save', { method: 'POST', body });
            expect(device.code).toBe(0);
            ids.push(device.data.deviceId);
        }
        const body = new URLSearchParams({ projectId: String(projectId) });
        for (const id of ids) body.append('deviceId', String(id));
        expect((await json('/api/device/bind', { method: 'POST', body })).code).toBe(0);
        return ids;
    }

    it('filters by scene and by name, keeps both in the URL, and pages with 5, 10 and 20 offered', async () => {
        for (let i = 1; i <= 12; i++) await newProject(`分页项目${String(i).padStart(2, '0')}`, '工业互联网');
        renderApp('/programList');
        // The first screen of the file also loads the page's code: give it longer.
        await waitFor(() => expect(bodyRows()).toHaveLength(10), { timeout: 30_000 });

        // 全部 and every scene (the four a platform starts with) are offered.
        const scenesGroup = screen.getByRole('group', { name: '项目分类' });
        const offered = within(scenesGroup)
            .getAllByRole('button')
            .map((b) => b.textContent);
        expect(offered.slice(0, 5)).toEqual(['全部', '智慧办公', '智慧城市', '智慧车辆', '工业互联网']);

        fireEvent.click(within(scenesGroup).getByRole('button', { name: '智慧城市' }));
        await waitFor(() => expect(rowNames()).toEqual(['城市照明改造项目']));
        expect(searchParam('classId')).toBe(String(await sceneId('智慧城市')));
        expect(within(rowOf('城市照明改造项目')).getByText('智慧城市')).toBeInTheDocument();

        fireEvent.click(within(scenesGroup).getByRole('button', { name: '工业互联网' }));
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        await userEvent.type(screen.getByRole('textbox', { name: '项目名称' }), '分页项目1');
        // The search asks once typing pauses (400 ms).
        await waitFor(() => expect(rowNames()).toEqual(['分页项目12', '分页项目11', '分页项目10']), {
            timeout: 15_000,
        });
        expect(searchParam('name')).toBe('分页项目1');
        expect(searchParam('classId')).toBe(String(await sceneId('工业互联网')));

        await userEvent.clear(screen.getByRole('textbox', { name: '项目名称' }));
        await userEvent.type(screen.getByRole('textbox', { name: '项目名称' }), '没有这个项目');
        expect(await screen.findByText('没有符合条件的项目', undefined, { timeout: 15_000 })).toBeInTheDocument();

        // Back to every scene and every name: 4 demo projects + 12, newest first.
        await userEvent.clear(screen.getByRole('textbox', { name: '项目名称' }));
        fireEvent.click(within(scenesGroup).getByRole('button', { name: '全部' }));
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        expect(searchParam('classId')).toBeNull();
        await waitFor(() => expect(searchParam('name')).toBeNull());
        expect(rowNames()[0]).toBe('分页项目12');

        fireEvent.mouseDown(screen.getByRole('combobox', { name: /每页条数/ }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['5 条/页', '10 条/页', '20 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '5 条/页' }));
        await waitFor(() => expect(bodyRows()).toHaveLength(5));
        expect(searchParam('perPage')).toBe('5');
        fireEvent.click(screen.getByRole('button', { name: /下一页/ }));
        await waitFor(() => expect(rowNames()[0]).toBe('分页项目07'));
        expect(searchParam('page')).toBe('2');
    }, 90_000);

    it('opens with the scene, search and page of a bookmarked URL', async () => {
        const classId = await sceneId('智慧车辆');
        renderApp(`/programList?classId=${classId}&name=${encodeURIComponent('车队')}`);
        await waitFor(() => expect(rowNames()).toEqual(['物流车队管理项目']));
        expect(screen.getByRole('textbox', { name: '项目名称' })).toHaveValue('车队');
        expect(await screen.findByRole('button', { name: '智慧车辆' })).toHaveAttribute('aria-pressed', 'true');
    }, 60_000);

    it('creates a project with each message in the dialog, then edits it', async () => {
        renderApp('/programList');
        await waitFor(() => expect(bodyRows().length).toBeGreaterThan(0));

        fireEvent.click(screen.getByRole('button', { name: '新建项目' }));
        const create = await screen.findByRole('dialog', { name: '新建项目' });
        submit(create);
        expect(await within(create).findByText('请输入项目名称')).toBeInTheDocument();
        expect(within(create).getByText('请选择项目分类')).toBeInTheDocument();

        await userEvent.type(within(create).getByLabelText(/项目名称/), '园区二期项目');
        await chooseOption(within(create).getByRole('combobox', { name: /项目分类/ }), '智慧城市');
        await userEvent.type(within(create).getByLabelText('备注'), '<b>二期</b> 楼宇');
        submit(create);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(rowNames()[0]).toBe('园区二期项目'));
        const [saved] = await projectsNamed('园区二期项目');
        expect(saved.sceneName).toBe('智慧城市');
        expect(saved.code).toMatch(/^P\d{7}$/);
        // The remark is text, never markup.
        expect(within(rowOf('园区二期项目')).getByText('<b>二期</b> 楼宇')).toBeInTheDocument();
        expect(within(rowOf('园区二期项目')).getByText(saved.code)).toBeInTheDocument();

        // A name already used is refused with the server's message; the dialog stays open and nothing is written.
        fireEvent.click(screen.getByRole('button', { name: '新建项目' }));
        const again = await screen.findByRole('dialog', { name: '新建项目' });
        await userEvent.type(within(again).getByLabelText(/项目名称/), '园区二期项目');
        await chooseOption(within(again).getByRole('combobox', { name: /项目分类/ }), '智慧办公');
        submit(again);
        expect(await screen.findByText('项目名称已存在')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '新建项目' })).toBeInTheDocument();
        expect(await projectsNamed('园区二期项目')).toHaveLength(1);
        fireEvent.click(within(again).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新建项目' })).toBeNull());

        fireEvent.click(within(rowOf('园区二期项目')).getByRole('button', { name: '编辑' }));
        const edit = await screen.findByRole('dialog', { name: '编辑项目' });
        const name = within(edit).getByLabelText(/项目名称/);
        expect(name).toHaveValue('园区二期项目');
        expect(within(edit).getByRole('combobox', { name: /项目分类/ })).toHaveTextContent('智慧城市');
        await userEvent.clear(name);
        submit(edit);
        expect(await within(edit).findByText('请输入项目名称')).toBeInTheDocument();
        await userEvent.type(name, '园区三期项目');
        await chooseOption(within(edit).getByRole('combobox', { name: /项目分类/ }), '智慧车辆');
        submit(edit);
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        await waitFor(() => expect(within(rowOf('园区三期项目')).getByText('智慧车辆')).toBeInTheDocument());
        const [edited] = await projectsNamed('园区三期项目');
        expect(edited.id).toBe(saved.id);
        expect(edited.sceneName).toBe('智慧车辆');
        expect(edited.remark).toBe('<b>二期</b> 楼宇');
    }, 90_000);

    it('manages scenes: the name message, add, rename, a refused and an allowed delete', async () => {
        renderApp('/programList');
        await waitFor(() => expect(bodyRows().length).toBeGreaterThan(0));
        fireEvent.click(screen.getByRole('button', { name: '场景管理' }));
        const dialog = await screen.findByRole('dialog', { name: '场景管理' });
        const sceneList = await within(dialog).findByRole('table', { name: '场景列表' });
        await waitFor(() => expect(within(sceneList).getByText('智慧办公')).toBeInTheDocument());

        fireEvent.click(within(dialog).getByRole('button', { name: '添加' }));
        const add = await screen.findByRole('dialog', { name: '添加场景' });
        submit(add);
        expect(await within(add).findByText('请输入场景名称')).toBeInTheDocument();
        await userEvent.type(within(add).getByLabelText(/场景名称/), '智慧农业');
        submit(add);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await dismissNotification('添加成功');
        await waitFor(() => expect(within(sceneList).getByText('智慧农业')).toBeInTheDocument());
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加场景' })).toBeNull());
        expect((await scenes()).some((s) => s.name === '智慧农业')).toBe(true);

        // Rename: an emptied name says the message; a new one is saved.
        const item = within(sceneList).getByText('智慧农业').closest('tr')!;
        fireEvent.click(within(item).getByRole('button', { name: '重命名' }));
        const renaming = await screen.findByRole('dialog', { name: '重命名场景' });
        const rename = within(renaming).getByLabelText(/场景名称/);
        expect(rename).toHaveValue('智慧农业');
        await userEvent.clear(rename);
        submit(renaming);
        expect(await within(renaming).findByText('请输入场景名称')).toBeInTheDocument();
        await userEvent.type(rename, '智慧农场');
        submit(renaming);
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        await dismissNotification('修改成功');
        await waitFor(() => expect(within(sceneList).getByText('智慧农场')).toBeInTheDocument());
        // The rename dialog closes; until it has, MUI hides the dialog beneath it from the accessibility tree.
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '重命名场景' })).toBeNull());

        // The new scene is offered by the filter and by the project form.
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '场景管理' })).toBeNull());
        const filter = screen.getByRole('group', { name: '项目分类' });
        await waitFor(() => expect(within(filter).getByRole('button', { name: '智慧农场' })).toBeInTheDocument());
        fireEvent.click(screen.getByRole('button', { name: '新建项目' }));
        const create = await screen.findByRole('dialog', { name: '新建项目' });
        await userEvent.type(within(create).getByLabelText(/项目名称/), '农场大棚项目');
        await chooseOption(within(create).getByRole('combobox', { name: /项目分类/ }), '智慧农场');
        submit(create);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await dismissNotification('添加成功');
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新建项目' })).toBeNull());
        fireEvent.click(within(filter).getByRole('button', { name: '智慧农场' }));
        await waitFor(() => expect(rowNames()).toEqual(['农场大棚项目']));

        // A scene in use: the server refuses and its message is shown; the scene stays.
        fireEvent.click(screen.getByRole('button', { name: '场景管理' }));
        const again = await screen.findByRole('dialog', { name: '场景管理' });
        const list = await within(again).findByRole('table', { name: '场景列表' });
        await waitFor(() => expect(within(list).getByText('智慧农场')).toBeInTheDocument());
        const used = within(list).getByText('智慧农场').closest('tr')!;
        await waitFor(() => expect(used).toHaveTextContent('1 个项目'));
        fireEvent.click(within(used).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定删除场景「智慧农场」吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('该场景下还有1个项目，请先删除或移走项目')).toBeInTheDocument();
        await dismissNotification('该场景下还有1个项目，请先删除或移走项目');
        expect((await scenes()).some((s) => s.name === '智慧农场')).toBe(true);
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());

        // An unused scene goes. The add form starts empty again.
        fireEvent.click(within(again).getByRole('button', { name: '添加' }));
        const addAgain = await screen.findByRole('dialog', { name: '添加场景' });
        expect(within(addAgain).getByLabelText(/场景名称/)).toHaveValue('');
        await userEvent.type(within(addAgain).getByLabelText(/场景名称/), '临时场景');
        submit(addAgain);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await dismissNotification('添加成功');
        await waitFor(() => expect(within(list).getByText('临时场景')).toBeInTheDocument());
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加场景' })).toBeNull());
        fireEvent.click(
            within(within(list).getByText('临时场景').closest('tr')!).getByRole('button', { name: '删除' }),
        );
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(within(list).queryByText('临时场景')).toBeNull());
        expect((await scenes()).some((s) => s.name === '临时场景')).toBe(false);
    }, 90_000);

    it('says how many devices lose their project before deleting, and unbinds them', async () => {
        const project = await newProject('待删除项目', '智慧城市');
        const deviceIds = await bindDevices(project.id, 2);
        const empty = await newProject('空项目待删除', '智慧城市');

        renderApp(`/programList?name=${encodeURIComponent('删除')}`);
        await waitFor(() => expect(rowNames()).toEqual(['空项目待删除', '待删除项目']));
        expect(within(rowOf('待删除项目')).getByText('2')).toBeInTheDocument();

        // A project without devices: only the question.
        fireEvent.click(within(rowOf('空项目待删除')).getByRole('button', { name: '删除' }));
        let confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定删除项目「空项目待删除」吗？');
        await waitFor(() => expect(within(confirm).queryByLabelText('加载中')).toBeNull());
        expect(confirm).not.toHaveTextContent('解除关联');
        fireEvent.click(within(confirm).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).toBeNull());
        expect(await projectsNamed('空项目待删除')).toHaveLength(1);

        fireEvent.click(within(rowOf('待删除项目')).getByRole('button', { name: '删除' }));
        confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(await within(confirm).findByText('该项目下有2个设备，删除后这些设备将解除关联')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(rowNames()).toEqual(['空项目待删除']));
        expect(await projectsNamed('待删除项目')).toHaveLength(0);
        expect(empty.id).toBeGreaterThan(project.id);

        // The devices are still there, without a project.
        for (const id of deviceIds) {
            const detail = await json<{ device: { projectId: number | null } }>(`/api/device/detail?deviceId=${id}`);
            expect(detail.code).toBe(0);
            expect(detail.data.device.projectId).toBeNull();
        }
    }, 90_000);

    it('steps back a page after deleting the only row of the last page', async () => {
        for (let i = 1; i <= 6; i++) await newProject(`翻页删除${i}`, '智慧车辆');
        renderApp(`/programList?name=${encodeURIComponent('翻页删除')}&perPage=5&page=2`);
        await waitFor(() => expect(rowNames()).toEqual(['翻页删除1']));
        fireEvent.click(within(rowOf('翻页删除1')).getByRole('button', { name: '删除' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(searchParam('page')).toBe('1'));
        await waitFor(() => expect(bodyRows()).toHaveLength(5));
    }, 60_000);
});
