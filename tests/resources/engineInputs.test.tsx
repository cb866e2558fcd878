import { lazy, useState } from 'react';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { yupResolver } from '@hookform/resolvers/yup';
import { http } from 'msw';
import { MemoryRouter } from 'react-router-dom';
import type { Resolver } from 'react-hook-form';
import { AdminContext, Form, memoryStore, RecordContextProvider } from 'react-admin';
import * as yup from 'yup';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider } from '../../dataProvider';
import {
    apiResources,
    defineResource,
    type AnyPaths,
    renderField,
    type FieldDefinition,
    type FormValues,
} from '../../src/engine';
import { FormInput } from '../../src/engine/inputs';
import type { FormMode } from '../../src/engine/inputs/fieldView';
import { i18nProvider } from '../../src/i18n';
import type { MapAddress, MapPickerDialogProps } from '../../src/components/map/types';
import { widgets } from '../../src/widgets/registry';
import { chooseOption, mswServer, ok } from './helpers';

const groups = defineResource<AnyPaths>({
    name: 'treeGroups',
    label: '分组',
    fields: {},
    api: { success: 'code200', custom: { nodes: { get: '/api/test/groups', read: 'data' } } },
});

const candidates = defineResource<AnyPaths>({
    name: 'candidates',
    label: '候选设备',
    idField: 'deviceId',
    fields: { deviceName: { label: 'DeviceName' } },
    api: {
        success: 'code200',
        getList: {
            get: '/api/test/candidates',
            paging: ['pageNumber', 'pageSize'],
            read: 'data.list',
            total: 'data.total',
        },
    },
});

interface Options {
    mode?: FormMode;
    defaultValues?: FormValues;
    schema?: yup.AnyObjectSchema;
}

/** The inputs in a bare react-admin form; what it submits is recorded. */
function renderForm(inputs: Array<[string, FieldDefinition]>, options: Options = {}) {
    const submitted: FormValues[] = [];
    const dataProvider = createDataProvider(apiResources([groups, candidates]));
    const resolver = options.schema ? (yupResolver(options.schema) as Resolver) : undefined;
    render(
        <MemoryRouter>
            <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
                <Form
                    defaultValues={options.defaultValues}
                    resolver={resolver}
                    onSubmit={(values: FormValues) => void submitted.push(values)}
                    noValidate
                >
                    {inputs.map(([source, field]) => (
                        <FormInput key={source} source={source} field={field} mode={options.mode} />
                    ))}
                    <button type="submit">提交</button>
                </Form>
            </AdminContext>
        </MemoryRouter>,
    );
    return submitted;
}

async function submit(submitted: FormValues[]): Promise<FormValues> {
    const before = submitted.length;
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(submitted.length).toBe(before + 1));
    return submitted[submitted.length - 1];
}

const deviceName: FieldDefinition = {
    label: 'DeviceName',
    maxLength: 30,
    inputFilter: 'ascii',
    perView: { edit: { locked: true, maxLength: 100 } },
};

describe('field options per view', () => {
    it('limits deviceName to 30 characters on create and strips what is not printable ASCII as typed', async () => {
        const submitted = renderForm([['deviceName', deviceName]], { mode: 'create' });
        const box = screen.getByRole('textbox', { name: 'DeviceName' });
        expect(box).toHaveAttribute('maxlength', '30');
        expect(box).not.toBeDisabled();
        await userEvent.type(box, '温度dev 1号-A');
        expect(box).toHaveValue('dev 1-A');
        expect((await submit(submitted)).deviceName).toBe('dev 1-A');
    });

    it('locks deviceName in edit with a limit of 100, and still submits its value', async () => {
        const submitted = renderForm(
            [
                ['deviceName', deviceName],
                ['remark', { label: '备注' }],
            ],
            { mode: 'edit', defaultValues: { deviceName: 'sensor-01', remark: '' } },
        );
        const box = screen.getByRole('textbox', { name: 'DeviceName' });
        expect(box).toHaveAttribute('maxlength', '100');
        expect(box).toHaveValue('sensor-01');
        expect(box).toHaveAttribute('readonly');
        await userEvent.type(screen.getByRole('textbox', { name: '备注' }), '一楼');
        const values = await submit(submitted);
        expect(values).toMatchObject({ deviceName: 'sensor-01', remark: '一楼' });
    });

    it('keeps the chosen option name beside its code (nameField)', async () => {
        const submitted = renderForm([
            [
                'tcode',
                {
                    label: '设备类型',
                    choices: [
                        { id: '131', name: '摄像机' },
                        { id: '132', name: '网络摄像机' },
                    ],
                    nameField: 'tname',
                },
            ],
        ]);
        await chooseOption(screen.getByRole('combobox', { name: '设备类型' }), '网络摄像机');
        expect(await submit(submitted)).toMatchObject({ tcode: '132', tname: '网络摄像机' });
    });
});

describe('tree select', () => {
    afterEach(() => vi.useRealTimers());

    it('loads roots, then children on expand after the delay; level 3 is shown but not choosable', async () => {
        const asked: string[] = [];
        const nodes: Record<string, Array<{ groupId: number; groupName: string }>> = {
            '0': [{ groupId: 1, groupName: '一号楼' }],
            '1': [{ groupId: 11, groupName: '一层' }],
            '11': [{ groupId: 111, groupName: '101 室' }],
        };
        mswServer.use(
            http.get('*/api/test/groups', ({ request }) => {
                const q = new URL(request.url).searchParams;
                expect(q.get('projectCode')).toBe('P1');
                asked.push(q.get('pid') ?? '');
                return ok(nodes[q.get('pid') ?? ''] ?? []);
            }),
        );
        const submitted = renderForm(
            [
                [
                    'pid',
                    {
                        label: '父级分组',
                        input: 'tree',
                        nameField: 'parentName',
                        tree: {
                            source: {
                                resource: 'treeGroups',
                                call: 'nodes',
                                params: (s) => ({ projectCode: s.values?.projectCode }),
                            },
                            parentParam: 'pid',
                            optionValue: 'groupId',
                            optionText: 'groupName',
                            disabled: (_node, level) => level >= 3,
                            emptyOption: { id: 0, name: '无（作为一级分组）' },
                            delay: 50,
                        },
                    },
                ],
            ],
            { defaultValues: { projectCode: 'P1' } },
        );
        fireEvent.click(screen.getByRole('textbox', { name: '父级分组' }));
        const tree = await screen.findByRole('tree', { name: '父级分组' });
        const items = await within(tree).findAllByRole('treeitem');
        expect(items[0]).toHaveAccessibleName('无（作为一级分组）');
        await within(tree).findByRole('treeitem', { name: '一号楼' });
        expect(asked).toEqual(['0']);

        fireEvent.click(within(tree).getByRole('button', { name: '展开 一号楼' }));
        expect(within(tree).getByRole('status')).toHaveTextContent('加载中');
        expect(asked).toEqual(['0']);
        await within(tree).findByRole('treeitem', { name: '一层' });
        expect(asked).toEqual(['0', '1']);

        fireEvent.click(within(tree).getByRole('button', { name: '展开 一层' }));
        const room = await within(tree).findByRole('treeitem', { name: '101 室' });
        expect(room).toHaveAttribute('aria-level', '3');
        expect(room).toHaveAttribute('aria-disabled', 'true');
        expect(within(room).getByRole('button', { name: '101 室' })).toHaveAttribute('aria-disabled', 'true');

        fireEvent.click(within(tree).getByRole('button', { name: '一层' }));
        await waitFor(() => expect(screen.getByRole('textbox', { name: '父级分组' })).toHaveValue('一层'));
        expect(await submit(submitted)).toMatchObject({ pid: 11, parentName: '一层' });

        fireEvent.click(screen.getByRole('textbox', { name: '父级分组' }));
        fireEvent.click(await screen.findByRole('button', { name: '无（作为一级分组）' }));
        expect(await submit(submitted)).toMatchObject({ pid: 0, parentName: '无（作为一级分组）' });
    });
});

describe('picker over a paged call', () => {
    const devices = Array.from({ length: 25 }, (_, i) => ({
        deviceId: i + 1,
        deviceName: `dev-${String(i + 1).padStart(2, '0')}`,
    }));

    it('keeps the selection across pages and searches, and says how many are chosen', async () => {
        const asked: URLSearchParams[] = [];
        mswServer.use(
            http.get('*/api/test/candidates', ({ request }) => {
                const q = new URL(request.url).searchParams;
                asked.push(q);
                const name = q.get('deviceName') ?? '';
                const rows = devices.filter((d) => d.deviceName.includes(name));
                const page = Number(q.get('pageNumber'));
                const size = Number(q.get('pageSize'));
                return ok({ list: rows.slice((page - 1) * size, page * size), total: rows.length });
            }),
        );
        const submitted = renderForm(
            [
                [
                    'deviceIds',
                    {
                        label: '选择设备',
                        input: 'picker',
                        picker: {
                            source: {
                                resource: 'candidates',
                                call: 'getList',
                                params: (s) => ({ productId: s.values?.productId }),
                            },
                            columns: ['deviceName'],
                            rowId: 'deviceId',
                            perPage: 10,
                            filters: [{ source: 'deviceName', label: '搜索设备', input: 'search' }],
                        },
                    },
                ],
            ],
            { defaultValues: { productId: 7 } },
        );
        const table = await screen.findByRole('table', { name: '选择设备' });
        await within(table).findByText('dev-01');
        expect(asked[0].get('productId')).toBe('7');
        expect(screen.getByText('共 25 条')).toBeInTheDocument();
        fireEvent.click(within(table).getByRole('checkbox', { name: '选择 1' }));
        expect(screen.getByText('已选 1 个')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: 'Go to page 2' }));
        await within(table).findByText('dev-12');
        fireEvent.click(within(table).getByRole('checkbox', { name: '选择 12' }));
        expect(screen.getByText('已选 2 个')).toBeInTheDocument();

        const search = screen.getByRole('textbox', { name: '搜索设备' });
        await userEvent.type(search, 'dev-03{Enter}');
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
        fireEvent.click(within(table).getByRole('checkbox', { name: '选择 3' }));
        expect(screen.getByText('已选 3 个')).toBeInTheDocument();

        await userEvent.clear(search);
        await userEvent.type(search, '{Enter}');
        await within(table).findByText('dev-01');
        expect(within(table).getByRole('checkbox', { name: '选择 1' })).toBeChecked();
        expect(within(table).getByRole('checkbox', { name: '选择 3' })).toBeChecked();
        expect(within(table).getByRole('checkbox', { name: '选择 2' })).not.toBeChecked();
        expect((await submit(submitted)).deviceIds).toEqual([1, 12, 3]);
    });
});

describe('key / value rows', () => {
    it('adds and removes rows up to the maximum; the schema speaks beside the row', async () => {
        const schema = yup.object({
            tags: yup.array(
                yup.object({ key: yup.string().required('不能为空,请定义Key名'), value: yup.string().nullable() }),
            ),
        });
        const submitted = renderForm(
            [
                [
                    'tags',
                    {
                        label: '标签',
                        input: 'keyValue',
                        keyValue: { keyLabel: '标签key', valueLabel: '标签value', addLabel: '添加标签', max: 2 },
                    },
                ],
            ],
            { defaultValues: { tags: [] }, schema },
        );
        expect(screen.getByText('暂无标签')).toBeInTheDocument();
        const add = screen.getByRole('button', { name: '添加标签' });
        fireEvent.click(add);
        fireEvent.click(add);
        expect(screen.getAllByTestId('tags-row')).toHaveLength(2);
        expect(add).toBeDisabled();
        expect(screen.getByText('最多 2 个')).toBeInTheDocument();

        const keys = screen.getAllByRole('textbox', { name: '标签key' });
        const vals = screen.getAllByRole('textbox', { name: '标签value' });
        await userEvent.type(keys[0], 'floor');
        await userEvent.type(vals[0], '1');
        await userEvent.type(vals[1], '2');
        fireEvent.click(screen.getByRole('button', { name: '提交' }));
        expect(await screen.findByText('不能为空,请定义Key名')).toBeInTheDocument();
        expect(submitted).toHaveLength(0);

        fireEvent.click(screen.getByRole('button', { name: '删除第2行' }));
        expect(screen.getAllByTestId('tags-row')).toHaveLength(1);
        expect(add).not.toBeDisabled();
        expect((await submit(submitted)).tags).toEqual([{ key: 'floor', value: '1' }]);
    });
});

describe('file input', () => {
    it('refuses a file of another kind or too large, with the reason, and takes a good one', async () => {
        const submitted = renderForm([
            ['file', { label: '导入文件', input: 'file', file: { accept: ['csv'], maxSize: 1024 } }],
        ]);
        const box = screen.getByLabelText('导入文件') as HTMLInputElement;
        await userEvent.upload(box, new File(['x'], 'devices.txt', { type: 'text/plain' }), { applyAccept: false });
        expect(await screen.findByText('仅支持CSV格式的文件')).toBeInTheDocument();
        await userEvent.upload(box, new File(['x'.repeat(2048)], 'big.csv', { type: 'text/csv' }));
        expect(await screen.findByText('文件大小不能超过1KB')).toBeInTheDocument();
        const good = new File(['deviceName\nd1'], 'ok.csv', { type: 'text/csv' });
        await userEvent.upload(box, good);
        expect(await screen.findByText(/ok\.csv/)).toBeInTheDocument();
        expect(screen.queryByText('文件大小不能超过1KB')).not.toBeInTheDocument();
        expect((await submit(submitted)).file).toBe(good);
    });
});

describe('map position', () => {
    const original = widgets.mapPicker;
    afterEach(() => {
        widgets.mapPicker = original;
    });

    it('fills longitude, latitude, address and the province / city / area codes from the picked adcode', async () => {
        const picked: MapAddress = {
            lng: 121.4737,
            lat: 31.2304,
            address: '上海市黄浦区人民大道',
            province: '上海市',
            city: '上海市',
            district: '黄浦区',
            street: '',
            adcode: '310101',
        };
        function FakePicker({ onConfirm, onClose }: MapPickerDialogProps) {
            const [clicked, setClicked] = useState(false);
            return (
                <div role="dialog" aria-label="选择位置">
                    <button disabled={clicked} onClick={() => (setClicked(true), onConfirm(picked))}>
                        确认位置
                    </button>
                    <button onClick={onClose}>取消</button>
                </div>
            );
        }
        widgets.mapPicker = lazy(async () => ({ default: FakePicker }));
        const submitted = renderForm([
            [
                'position',
                {
                    label: '设备位置',
                    type: 'position',
                    position: {
                        longitude: 'lng',
                        latitude: 'lat',
                        address: 'address',
                        province: 'pcode',
                        city: 'ccode',
                        area: 'acode',
                        adcode: 'adcode',
                    },
                },
            ],
        ]);
        expect(screen.getByRole('textbox', { name: '设备位置' })).toHaveValue('');
        fireEvent.click(screen.getByRole('button', { name: '选择位置' }));
        const dialog = await screen.findByRole('dialog', { name: '选择位置' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确认位置' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(screen.getByRole('textbox', { name: '设备位置' })).toHaveValue(
            '上海市黄浦区人民大道（121.4737, 31.2304）',
        );
        expect(await submit(submitted)).toMatchObject({
            position: '121.4737,31.2304',
            lng: 121.4737,
            lat: 31.2304,
            address: '上海市黄浦区人民大道',
            pcode: '31',
            ccode: '01',
            acode: '01',
            adcode: '310101',
        });
    });
});

describe('field display', () => {
    function show(source: string, field: FieldDefinition, record: Record<string, unknown>) {
        render(
            <AdminContext i18nProvider={i18nProvider} store={memoryStore()}>
                <RecordContextProvider value={{ id: 1, ...record }}>{renderField(source, field)}</RecordContextProvider>
            </AdminContext>,
        );
    }

    it('masks a secret until 显示 is clicked', () => {
        show('deviceSecret', { label: 'DeviceSecret', masked: true }, { deviceSecret: 's3cr3t' });
        expect(screen.getByText('******')).toBeInTheDocument();
        expect(screen.queryByText('s3cr3t')).not.toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '显示' }));
        expect(screen.getByText('s3cr3t')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '隐藏' }));
        expect(screen.queryByText('s3cr3t')).not.toBeInTheDocument();
    });

    it('shows a position as its address, else as "lng, lat"', () => {
        const field: FieldDefinition = {
            label: '位置',
            type: 'position',
            position: { longitude: 'lng', latitude: 'lat', address: 'address' },
        };
        show('position', field, { lng: 121.5, lat: 31.2, address: '上海市浦东新区' });
        expect(screen.getByText('上海市浦东新区')).toBeInTheDocument();
    });

    it('shows a position without an address as "lng, lat"', () => {
        const field: FieldDefinition = {
            label: '位置',
            type: 'position',
            position: { longitude: 'lng', latitude: 'lat' },
        };
        show('position', field, { lng: 121.5, lat: 31.2 });
        expect(screen.getByText('121.5, 31.2')).toBeInTheDocument();
    });
});
