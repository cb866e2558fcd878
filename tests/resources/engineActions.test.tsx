import { useState } from 'react';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import * as yup from 'yup';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineResource, type AnyPaths, EditDialog, type Action } from '../../src/engine';
import { ActionBar } from '../../src/engine/actions';
import { useCall } from '../../src/engine/calls';
import { useScope } from '../../src/engine/scope';
import { registerWidget, type WidgetProps } from '../../src/widgets/registry';
import { currentLocation, fail, mswServer, ok, renderDefinitions } from './helpers';

/** Actions of a made-up resource, rendered as the toolbar of a screen whose record is one gadget. */

const GADGET = { id: 7, deviceName: 'gw-0007', name: '一号网关', secret: 's3cr3t', status: 0 };

let count = 0;
let sent: Array<{ path: string; form: Record<string, string> }> = [];

function ImportResult({ answer }: WidgetProps & { answer?: { written: number; refused: number } }) {
    return (
        <p>
            导入完成：成功 {answer?.written} 个，失败 {answer?.refused} 个
        </p>
    );
}
registerWidget('testImportResult', async () => ({ default: ImportResult as never }));

function TagEditor({ scope, onClose, tag }: WidgetProps & { tag?: string }) {
    return (
        <div>
            <p>
                标签编辑：{String(scope.record.name)} / {tag}
            </p>
            <button type="button" onClick={onClose}>
                完成
            </button>
        </div>
    );
}
registerWidget('testTagEditor', async () => ({ default: TagEditor as never }));

const ACTIONS: Action[] = [
    {
        kind: 'call',
        label: '启用',
        call: { call: 'enable', params: ({ record }) => ({ id: record.id }) },
        confirm: ({ record }) => `确定启用 ${record.name}？`,
        success: '启用成功',
    },
    { kind: 'call', label: '停用', call: { call: 'disable' }, failure: '停用失败' },
    {
        kind: 'form',
        label: '绑定',
        title: ({ record }) => `绑定 ${record.name}`,
        fields: ['name', ['amount', { label: '数量', type: 'number', required: true }]],
        schema: yup.object({
            name: yup.string().trim().required('请输入名称'),
            amount: yup.number().typeError('请输入数量').min(1, '数量至少为 1').required('请输入数量'),
        }),
        defaults: ({ record }) => ({ name: record.name }),
        submit: { call: 'bind', params: ({ record, values }) => ({ gadgetId: record.id, ...values }) },
        success: (answer) => `绑定成功 ${(answer as { bound: number }).bound} 个`,
    },
    {
        kind: 'form',
        label: '编辑',
        mode: 'edit',
        fields: ['deviceName', 'name'],
        defaults: ({ record }) => ({ deviceName: record.deviceName, name: record.name }),
        submit: { call: 'edit' },
        success: '修改成功',
    },
    { kind: 'copy', label: '复制密钥', value: ({ record }) => String(record.secret) },
    {
        kind: 'link',
        label: '在线详情',
        to: ({ record }) => `/gadget/${record.id}`,
        when: ({ record }) => record.status === 1,
    },
    { kind: 'link', label: '查看', to: ({ record }) => `/gadget/${record.id}/show` },
    {
        kind: 'call',
        label: '删除',
        call: { call: 'delete' },
        disabled: ({ record }) => (record.status === 0 ? '离线设备不能删除' : false),
    },
    {
        kind: 'upload',
        label: '导入',
        title: '批量导入',
        call: { call: 'import', params: ({ values }) => ({ ...values }) },
        accept: ['csv'],
        maxSize: 64,
        success: '文件上传成功',
        result: 'testImportResult',
    },
    { kind: 'download', label: '下载模板', call: { call: 'template', params: () => ({ kind: 'csv' }) } },
    { kind: 'widget', label: '标签', widget: 'testTagEditor', props: () => ({ tag: '一楼' }) },
];

function GadgetScreen() {
    const scope = useScope({ record: GADGET });
    const counted = useCall<number>({ call: 'count' }, scope);
    return (
        <div>
            <p>计数：{counted.data ?? '…'}</p>
            <ActionBar actions={ACTIONS} scope={scope} />
        </div>
    );
}

const gadgets = defineResource<AnyPaths>({
    name: 'gadgets',
    label: '部件',
    path: 'gadget',
    fields: {
        deviceName: { label: 'DeviceName', maxLength: 30, perView: { edit: { locked: true, maxLength: 100 } } },
        name: { label: '名称' },
    },
    views: { list: GadgetScreen },
    api: {
        success: 'code200',
        custom: {
            count: { get: '/api/gadget/count', read: 'data' },
            enable: { post: '/api/gadget/enable' },
            disable: { post: '/api/gadget/disable' },
            bind: { post: '/api/gadget/bind', read: 'data' },
            edit: { post: '/api/gadget/edit' },
            delete: { post: '/api/gadget/delete' },
            import: { post: '/api/gadget/import', read: 'data' },
            template: { get: '/api/gadget/template' },
        },
    },
});

const record =
    (path: string) =>
    async ({ request }: { request: Request }) => {
        const form = Object.fromEntries(new URLSearchParams(await request.text()));
        sent.push({ path, form });
    };

function handlers(answers: Partial<Record<'enable' | 'disable' | 'bind' | 'edit', () => Response>> = {}) {
    return [
        http.get('*/api/gadget/count', () => ok(count)),
        http.post('*/api/gadget/enable', async (info) => {
            await record('enable')(info);
            if (answers.enable) return answers.enable();
            count += 1;
            return ok(null);
        }),
        http.post('*/api/gadget/disable', async (info) => {
            await record('disable')(info);
            return answers.disable?.() ?? ok(null);
        }),
        http.post('*/api/gadget/bind', async (info) => {
            await record('bind')(info);
            return answers.bind?.() ?? ok({ bound: 3 });
        }),
        http.post('*/api/gadget/edit', async (info) => {
            await record('edit')(info);
            return answers.edit?.() ?? ok(null);
        }),
    ];
}

async function openScreen() {
    renderDefinitions([gadgets], '/gadget');
    expect(await screen.findByText('计数：0')).toBeInTheDocument();
}

const button = (name: string) => screen.getByRole('button', { name });

beforeEach(() => {
    count = 0;
    sent = [];
});

afterEach(() => {
    vi.restoreAllMocks();
});

describe('call actions', () => {
    it('asks first, then calls, says the success message and reloads what the action changed', async () => {
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('启用'));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(within(confirm).getByText('确定启用 一号网关？')).toBeInTheDocument();
        expect(sent).toHaveLength(0);
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('启用成功')).toBeInTheDocument();
        expect(sent).toEqual([{ path: 'enable', form: { id: '7' } }]);
        // The count call belongs to the resource, so the default refresh reloads it.
        expect(await screen.findByText('计数：1')).toBeInTheDocument();
    });

    it('sends nothing when the confirmation is cancelled', async () => {
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('启用'));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        fireEvent.click(within(confirm).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(sent).toHaveLength(0);
    });

    it("shows the server's message when the call fails, and reloads nothing", async () => {
        mswServer.use(...handlers({ enable: () => fail('设备不存在') }));
        await openScreen();
        fireEvent.click(button('启用'));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('设备不存在')).toBeInTheDocument();
        expect(screen.queryByText('启用成功')).toBeNull();
        expect(screen.getByText('计数：0')).toBeInTheDocument();
    });

    it("says the action's own failure words when the server's answer carries no message", async () => {
        mswServer.use(...handlers({ disable: () => ok0Failure() }));
        await openScreen();
        fireEvent.click(button('停用'));
        expect(await screen.findByText('停用失败')).toBeInTheDocument();
    });

    it('keeps the button disabled while the call runs', async () => {
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        mswServer.use(
            http.post('*/api/gadget/disable', async () => {
                await gate;
                return ok(null);
            }),
            ...handlers(),
        );
        await openScreen();
        fireEvent.click(button('停用'));
        await waitFor(() => expect(button('停用')).toBeDisabled());
        release();
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        expect(button('停用')).toBeEnabled();
    });
});

/** An envelope failure with no message of its own. */
const ok0Failure = () =>
    new Response(JSON.stringify({ code: 500 }), { headers: { 'content-type': 'application/json' } });

describe('form actions', () => {
    it("validates with the schema's messages, then submits the values to the declared call", async () => {
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('绑定'));
        const dialog = await screen.findByRole('dialog', { name: '绑定 一号网关' });
        expect(within(dialog).getByRole('textbox', { name: '名称' })).toHaveValue('一号网关');
        await userEvent.clear(within(dialog).getByRole('textbox', { name: '名称' }));
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入名称')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入数量')).toBeInTheDocument();
        expect(sent).toHaveLength(0);

        await userEvent.type(within(dialog).getByRole('textbox', { name: '名称' }), '二号网关');
        await userEvent.type(within(dialog).getByRole('spinbutton', { name: /数量/ }), '3');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('绑定成功 3 个')).toBeInTheDocument();
        expect(sent).toEqual([{ path: 'bind', form: { gadgetId: '7', name: '二号网关', amount: '3' } }]);
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    });

    it("keeps the dialog open with the server's message when the call is refused", async () => {
        mswServer.use(...handlers({ bind: () => fail('数量超过上限') }));
        await openScreen();
        fireEvent.click(button('绑定'));
        const dialog = await screen.findByRole('dialog', { name: '绑定 一号网关' });
        await userEvent.type(within(dialog).getByRole('spinbutton', { name: /数量/ }), '999');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('数量超过上限')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '绑定 一号网关' })).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '确定' })).toBeEnabled();
    });

    it('edit mode locks the field its perView says, and still submits its value', async () => {
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('编辑'));
        const dialog = await screen.findByRole('dialog', { name: '编辑' });
        const locked = within(dialog).getByRole('textbox', { name: 'DeviceName' });
        expect(locked).toHaveValue('gw-0007');
        expect(locked).toHaveAttribute('readonly');
        expect(locked).toHaveAttribute('maxlength', '100');
        await userEvent.clear(within(dialog).getByRole('textbox', { name: '名称' }));
        await userEvent.type(within(dialog).getByRole('textbox', { name: '名称' }), '新名称');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(sent).toEqual([
            { path: 'edit', form: expect.objectContaining({ deviceName: 'gw-0007', name: '新名称', id: '7' }) },
        ]);
    });
});

describe('copy, link, when and disabled', () => {
    it('copies through the clipboard and says 复制成功', async () => {
        const writeText = vi.fn(async () => undefined);
        Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('复制密钥'));
        expect(await screen.findByText('复制成功')).toBeInTheDocument();
        expect(writeText).toHaveBeenCalledWith('s3cr3t');
    });

    it('falls back to a textarea where the Clipboard API is refused', async () => {
        const writeText = vi.fn(async () => Promise.reject(new Error('not allowed')));
        Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
        let copied = '';
        const execCommand = vi.fn(() => {
            copied = (document.activeElement as HTMLTextAreaElement).value;
            return true;
        });
        Object.defineProperty(document, 'execCommand', { configurable: true, value: execCommand });
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('复制密钥'));
        expect(await screen.findByText('复制成功')).toBeInTheDocument();
        expect(execCommand).toHaveBeenCalledWith('copy');
        expect(copied).toBe('s3cr3t');
    });

    it('hides an action whose `when` fails, disables one with the reason as tooltip, and links', async () => {
        mswServer.use(...handlers());
        await openScreen();
        expect(screen.queryByRole('link', { name: '在线详情' })).toBeNull();
        expect(screen.queryByRole('button', { name: '在线详情' })).toBeNull();
        const remove = button('删除');
        expect(remove).toBeDisabled();
        await userEvent.hover(remove.parentElement!);
        expect(await screen.findByRole('tooltip')).toHaveTextContent('离线设备不能删除');

        fireEvent.click(screen.getByRole('link', { name: '查看' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/gadget/7/show'));
    });

    it("downloads from the call's URL through an <a download>", async () => {
        const clicks: HTMLAnchorElement[] = [];
        vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
            clicks.push(this);
        });
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('下载模板'));
        expect(clicks).toHaveLength(1);
        expect(clicks[0].href).toMatch(/\/api\/gadget\/template\?kind=csv$/);
        expect(clicks[0].hasAttribute('download')).toBe(true);
    });

    it('opens a named widget in a dialog with the scope and its props, and closes through it', async () => {
        mswServer.use(...handlers());
        await openScreen();
        fireEvent.click(button('标签'));
        const dialog = await screen.findByRole('dialog', { name: '标签' });
        expect(await within(dialog).findByText('标签编辑：一号网关 / 一楼')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '完成' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    });
});

describe('upload actions', () => {
    const csv = (text: string, name = 'gadgets.csv') => new File([text], name, { type: 'text/csv' });
    const pick = (dialog: HTMLElement, file: File) =>
        fireEvent.change(within(dialog).getByLabelText('选择文件'), { target: { files: [file] } });

    it('refuses a wrong type or a too large file before sending, in Chinese', async () => {
        const uploads: string[] = [];
        mswServer.use(
            ...handlers(),
            http.post('*/api/gadget/import', () => {
                uploads.push('import');
                return ok({ written: 0, refused: 0 });
            }),
        );
        await openScreen();
        fireEvent.click(button('导入'));
        const dialog = await screen.findByRole('dialog', { name: '批量导入' });
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        expect(await within(dialog).findByText('请选择文件')).toBeInTheDocument();
        pick(dialog, new File(['x'], 'gadgets.xlsx'));
        expect(within(dialog).getByText('只能上传 .csv 格式的文件')).toBeInTheDocument();
        pick(dialog, csv('deviceName\n'.repeat(10)));
        expect(within(dialog).getByText('文件大小不能超过 64B')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        await new Promise((r) => setTimeout(r, 50));
        expect(uploads).toHaveLength(0);
    });

    it('shows a progress bar while the file travels, then the result widget with the answer', async () => {
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        const received: string[] = [];
        mswServer.use(
            ...handlers(),
            http.post('*/api/gadget/import', async ({ request }) => {
                // Under jsdom msw loses the file's bytes and name (NOTES.md): that it travels as `file` is what shows.
                const form = await request.formData();
                received.push(...form.keys());
                await gate;
                return ok({ written: 2, refused: 1 });
            }),
        );
        await openScreen();
        fireEvent.click(button('导入'));
        const dialog = await screen.findByRole('dialog', { name: '批量导入' });
        pick(dialog, csv('a\nb\n'));
        expect(within(dialog).getByTestId('upload-file-name')).toHaveTextContent('gadgets.csv');
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));

        const bar = await within(dialog).findByRole('progressbar', { name: '上传进度' });
        expect(bar).toHaveAttribute('aria-valuenow', '0');
        expect(within(dialog).getByRole('button', { name: '上传中…' })).toBeDisabled();
        expect(within(dialog).getByRole('button', { name: '取消' })).toBeDisabled();
        await waitFor(() => expect(received).toEqual(['file']));
        release();

        expect(await screen.findByText('文件上传成功')).toBeInTheDocument();
        expect(await within(dialog).findByText('导入完成：成功 2 个，失败 1 个')).toBeInTheDocument();
        expect(within(dialog).queryByRole('progressbar')).toBeNull();
        fireEvent.click(within(dialog).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    });
});

describe('edit in a dialog', () => {
    const things = defineResource<AnyPaths>({
        name: 'things',
        label: '物品',
        path: 'thing',
        fields: {
            id: { label: '编号', readOnly: true },
            code: { label: '编码', perView: { edit: { locked: true } } },
            name: { label: '名称' },
        },
        schema: yup.object({ code: yup.string().required('请输入编码'), name: yup.string().required('请输入名称') }),
        editSchema: yup.object({ name: yup.string().trim().required('名称不能为空') }),
        messages: { updated: '物品已修改' },
        views: { list: ThingScreen },
        api: {
            success: 'code200',
            getOne: { get: '/api/thing/get', params: (r) => ({ id: r.id }), read: 'data' },
            update: { post: '/api/thing/update', read: 'data' },
        },
    });
    const THING = { id: 5, code: 'T-005', name: '旧名称' };

    function ThingScreen() {
        const [open, setOpen] = useState(false);
        return (
            <>
                <button type="button" onClick={() => setOpen(true)}>
                    编辑物品
                </button>
                <EditDialog open={open} onClose={() => setOpen(false)} record={THING} />
            </>
        );
    }

    function thingHandlers(update: () => Response) {
        return [
            http.get('*/api/thing/get', () => ok(THING)),
            http.post('*/api/thing/update', async (info) => {
                await record('update')(info);
                return update();
            }),
        ];
    }

    it('edits with the edit fields and editSchema, locks what perView.edit locks, and says messages.updated', async () => {
        mswServer.use(...thingHandlers(() => ok({ ...THING, name: '新名称' })));
        renderDefinitions([things], '/thing');
        fireEvent.click(await screen.findByRole('button', { name: '编辑物品' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑物品' });
        const code = await within(dialog).findByRole('textbox', { name: '编码' });
        expect(code).toHaveValue('T-005');
        expect(code).toHaveAttribute('readonly');
        const name = within(dialog).getByRole('textbox', { name: '名称' });
        await userEvent.clear(name);
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('名称不能为空')).toBeInTheDocument();
        await userEvent.type(name, '新名称');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('物品已修改')).toBeInTheDocument();
        expect(sent).toEqual([
            { path: 'update', form: expect.objectContaining({ id: '5', code: 'T-005', name: '新名称' }) },
        ]);
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    });

    it("keeps the dialog open with the server's message when the update is refused", async () => {
        mswServer.use(...thingHandlers(() => fail('名称已存在')));
        renderDefinitions([things], '/thing');
        fireEvent.click(await screen.findByRole('button', { name: '编辑物品' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑物品' });
        await within(dialog).findByRole('textbox', { name: '编码' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('名称已存在')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '编辑物品' })).toBeInTheDocument();
    });
});
