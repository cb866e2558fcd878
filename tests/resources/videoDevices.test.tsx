import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import videoDevices from '../../resources/videoDevices';
import { chooseOption, currentLocation, fail, mswServer, ok, renderDefinitions, searchParam } from './helpers';

/**
 * Video devices as one definition (resources/videoDevices.tsx): the list at /videoList with its status tabs, add
 * rtsp / gb28181 dialogs, edit with product and protocol locked, push / stop push, delete, and the detail page
 * /videoInfo/{deviceName}?deviceId=. msw answers here in the platform's shapes (the reference server's own answers are
 * proven in tests/server/videoDevices.test.ts and the e2e); the password is never answered, only hasPassword.
 */

interface Video {
    deviceId: number;
    deviceName: string;
    productId: number;
    productName: string;
    projectId: number | null;
    protocol: 'rtsp' | 'gb28181';
    status: string;
    pushing: 0 | 1;
    host?: string;
    port?: number;
    username?: string;
    hasPassword?: boolean;
    uri?: string;
    manufacturer?: string;
    sipId?: string;
    remark?: string;
    createTime: string;
}

const MARKUP = '<img src=x onerror=alert(1)>';
const PRODUCTS = [
    { productId: 1, productName: '园区摄像头', productKey: 'pk1', nodeType: 0 },
    { productId: 2, productName: '<b>门禁</b>相机', productKey: 'pk2', nodeType: 0 },
];

let videos: Video[] = [];
const lists: URLSearchParams[] = [];
const sent: Array<{ path: string; body: URLSearchParams }> = [];

function camera(i: number, over: Partial<Video> = {}): Video {
    return {
        deviceId: i,
        deviceName: `cam${String(i).padStart(2, '0')}`,
        productId: 1,
        productName: '园区摄像头',
        projectId: 7,
        protocol: 'rtsp',
        status: 'ONLINE',
        pushing: 0,
        host: `192.168.1.${i}`,
        port: 554,
        username: 'admin',
        hasPassword: true,
        uri: '/h264/ch1/sub/av_stream',
        remark: '',
        createTime: '2025-03-01 10:00:00',
        ...over,
    };
}

const form = async (request: Request) => new URLSearchParams(await request.text());

const handlers = () => [
    http.get('*/api/video-device/list', ({ request }) => {
        const params = new URL(request.url).searchParams;
        lists.push(params);
        const pushing = params.get('pushing');
        const name = params.get('deviceName');
        const rows = videos.filter(
            (v) => (!pushing || String(v.pushing) === pushing) && (!name || v.deviceName.includes(name)),
        );
        const n = Number(params.get('pageNumber') ?? 1);
        const size = Number(params.get('pageSize') ?? 10);
        return ok({ records: rows.slice((n - 1) * size, n * size), total: rows.length });
    }),
    http.get('*/api/video-device/get', ({ request }) => {
        const id = new URL(request.url).searchParams.get('id');
        const found = videos.find((v) => String(v.deviceId) === id);
        return found ? ok(found) : fail('视频设备不存在', 404);
    }),
    http.get('*/api/video-device/dict', ({ request }) => {
        const kind = new URL(request.url).searchParams.get('kind');
        return ok(kind === '1' ? [{ code: '132', name: '网络摄像机' }] : [{ code: '0', name: '默认' }]);
    }),
    http.get('*/api/product/list-product', () => ok({ list: PRODUCTS })),
    http.get('*/api/video-device/stream-status', ({ request }) => {
        const id = new URL(request.url).searchParams.get('id');
        const found = videos.find((v) => String(v.deviceId) === id);
        return ok({
            pushing: found?.pushing ?? 0,
            state: found?.pushing ? 'starting' : 'stopped',
            error: null,
            attempts: 0,
            retryAt: null,
            mode: null,
            codec: null,
            viewers: 0,
            bytesServed: 0,
        });
    }),
    ...['add-rtsp', 'add-gb28181', 'edit-rtsp', 'edit-gb28181'].map((path) =>
        http.post(`*/api/video-device/${path}`, async ({ request }) => {
            const body = await form(request);
            sent.push({ path, body });
            if (path.startsWith('edit')) {
                const id = body.get('deviceId') ?? body.get('id');
                const found = videos.find((v) => String(v.deviceId) === id)!;
                found.deviceName = body.get('deviceName') ?? found.deviceName;
                if (body.has('host')) found.host = body.get('host')!;
                if (body.has('manufacturer')) found.manufacturer = body.get('manufacturer')!;
            }
            return ok(null);
        }),
    ),
    ...(['push', 'stop-push'] as const).map((path) =>
        http.post(`*/api/video-device/${path}`, async ({ request }) => {
            const body = await form(request);
            sent.push({ path, body });
            const found = videos.find((v) => String(v.deviceId) === body.get('deviceId'))!;
            found.pushing = path === 'push' ? 1 : 0;
            return ok(null);
        }),
    ),
    http.delete('*/api/video-device/delete', ({ request }) => {
        const id = new URL(request.url).searchParams.get('id');
        sent.push({ path: 'delete', body: new URL(request.url).searchParams });
        videos = videos.filter((v) => String(v.deviceId) !== id);
        return ok(null);
    }),
];

const SLOW = { timeout: 15_000 };
const rows = () => within(screen.getByRole('table')).getAllByRole('row').slice(1);
const rowOf = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

async function openList(url = '/videoList') {
    renderDefinitions([videoDevices], url);
    await screen.findByRole('table', {}, SLOW);
}

beforeEach(() => {
    videos = Array.from({ length: 12 }, (_, i) => camera(i + 1, { pushing: i % 3 === 0 ? 1 : 0 }));
    videos[1] = camera(2, {
        protocol: 'gb28181',
        status: 'OFFLINE',
        host: undefined,
        port: undefined,
        uri: '',
        manufacturer: '海康',
        sipId: '34020000002000000001',
    });
    lists.length = 0;
    sent.length = 0;
    mswServer.use(...handlers());
});

describe('the list at /videoList', () => {
    it('pages with the page in the URL and filters by the status tabs 全部 / 已激活 / 已停止', async () => {
        await openList();
        await waitFor(() => expect(rows()).toHaveLength(10));
        expect(lists.at(-1)?.get('pageSize')).toBe('10');
        const tabs = screen.getAllByRole('tab').map((t) => t.textContent);
        expect(tabs).toEqual(['全部', '已激活', '已停止']);
        expect(screen.getByRole('tab', { name: '全部', selected: true })).toBeInTheDocument();
        expect(rows()[0]).toHaveTextContent('cam01');
        expect(rows()[0]).toHaveTextContent('RTSP');
        expect(rows()[1]).toHaveTextContent('GB28181');

        fireEvent.click(
            within(screen.getByRole('navigation', { name: '分页' })).getByRole('button', { name: '第 2 页' }),
        );
        await waitFor(() => expect(searchParam('page')).toBe('2'));
        await waitFor(() => expect(rows()).toHaveLength(2));
        expect(lists.at(-1)?.get('pageNumber')).toBe('2');

        fireEvent.click(screen.getByRole('tab', { name: '已激活' }));
        await waitFor(() => expect(searchParam('status')).toBe('1'));
        expect(searchParam('page')).toBe('1');
        await waitFor(() => expect(lists.at(-1)?.get('pushing')).toBe('1'));
        await waitFor(() => expect(rows()).toHaveLength(4));
        expect(screen.getByRole('tab', { name: '已激活', selected: true })).toBeInTheDocument();

        fireEvent.click(screen.getByRole('tab', { name: '已停止' }));
        await waitFor(() => expect(searchParam('status')).toBe('0'));
        await waitFor(() => expect(rows()).toHaveLength(8));
    });

    it('opens on the tab the URL names', async () => {
        await openList('/videoList?status=0');
        expect(await screen.findByRole('tab', { name: '已停止', selected: true })).toBeInTheDocument();
        await waitFor(() => expect(lists.at(-1)?.get('pushing')).toBe('0'));
    });

    it('shows names with markup as text, in the list and on the detail page', async () => {
        videos = [camera(1, { deviceName: MARKUP, remark: '<script>x</script>' })];
        await openList();
        expect(await screen.findByText(MARKUP)).toBeInTheDocument();
        expect(document.querySelector('img[src="x"]')).toBeNull();
        fireEvent.click(within(rowOf(MARKUP)).getByRole('link', { name: '查看' }));
        expect(await screen.findByRole('heading', { name: MARKUP }, SLOW)).toBeInTheDocument();
        expect(currentLocation.pathname).toBe(`/videoInfo/${encodeURIComponent(MARKUP)}`);
        expect(searchParam('deviceId')).toBe('1');
        expect(screen.getByText('<script>x</script>')).toBeInTheDocument();
        expect(document.querySelector('img[src="x"]')).toBeNull();
    });
});

describe('adding', () => {
    it('adds an rtsp camera: every message on bad input and nothing sent, then the call with the form', async () => {
        await openList();
        fireEvent.click(screen.getByRole('button', { name: '添加RTSP设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加RTSP设备' });
        await within(dialog).findByRole('combobox', { name: /所属产品/ });
        expect(within(dialog).getByRole('spinbutton', { name: /端口/ })).toHaveValue(554);
        expect(within(dialog).getByRole('textbox', { name: '取流地址' })).toHaveValue('/h264/ch1/sub/av_stream');
        expect(within(dialog).getByRole('combobox', { name: /接入协议/ })).toHaveTextContent('RTSP');

        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /端口/ }), { target: { value: '' } });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请选择产品！')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入deviceName！')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入设备IP或域名')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入端口')).toBeInTheDocument();

        const name = within(dialog).getByRole('textbox', { name: /设备名称/ });
        expect(name).toHaveAttribute('maxlength', '30');
        await userEvent.type(name, '1号cam');
        expect(name).toHaveValue('1cam');
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /端口/ }), { target: { value: '70000' } });
        await userEvent.type(within(dialog).getByLabelText('密码'), 'a-b');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(
            await within(dialog).findByText('deviceName须以英文字母开头，只能包含英文字母、数字和下划线'),
        ).toBeInTheDocument();
        expect(within(dialog).getByText('端口须为1~65535的整数')).toBeInTheDocument();
        expect(within(dialog).getByText('支持英文字母、数字和下划线，最多16位')).toBeInTheDocument();
        expect(sent).toEqual([]);

        await userEvent.clear(name);
        await userEvent.type(name, 'gate_cam');
        fireEvent.change(within(dialog).getByRole('spinbutton', { name: /端口/ }), { target: { value: '8554' } });
        await userEvent.clear(within(dialog).getByLabelText('密码'));
        await userEvent.type(within(dialog).getByLabelText('密码'), 'pass_1');
        await userEvent.type(within(dialog).getByRole('textbox', { name: /设备IP/ }), '10.0.0.8');
        await chooseOption(within(dialog).getByRole('combobox', { name: /所属产品/ }), '园区摄像头');
        await chooseOption(within(dialog).getByRole('combobox', { name: '设备类型' }), '网络摄像机');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        expect(sent).toHaveLength(1);
        const { path, body } = sent[0];
        expect(path).toBe('add-rtsp');
        expect(Object.fromEntries(body)).toMatchObject({
            productId: '1',
            protocol: 'rtsp',
            deviceName: 'gate_cam',
            host: '10.0.0.8',
            port: '8554',
            password: 'pass_1',
            uri: '/h264/ch1/sub/av_stream',
            tcode: '132',
            tname: '网络摄像机',
        });
        expect(body.has('position')).toBe(false);
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    });

    it('adds a gb28181 camera only when the password is said twice alike', async () => {
        await openList();
        fireEvent.click(screen.getByRole('button', { name: '添加GB28181设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加GB28181设备' });
        await within(dialog).findByRole('combobox', { name: /所属产品/ });
        expect(within(dialog).queryByRole('textbox', { name: /设备IP/ })).not.toBeInTheDocument();
        expect(within(dialog).queryByRole('textbox', { name: '取流地址' })).not.toBeInTheDocument();
        await chooseOption(within(dialog).getByRole('combobox', { name: /所属产品/ }), '园区摄像头');
        await userEvent.type(within(dialog).getByRole('textbox', { name: /设备名称/ }), 'gb_cam');
        await userEvent.type(within(dialog).getByLabelText(/^密码/), 'pass_1');
        await userEvent.type(within(dialog).getByLabelText(/确认密码/), 'pass_2');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('两次输入的密码不一致，请重新输入！')).toBeInTheDocument();
        expect(sent).toEqual([]);

        await userEvent.clear(within(dialog).getByLabelText(/确认密码/));
        await userEvent.type(within(dialog).getByLabelText(/确认密码/), 'pass_1');
        await userEvent.type(within(dialog).getByRole('textbox', { name: '厂商' }), '大华');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        expect(sent.map((s) => s.path)).toEqual(['add-gb28181']);
        const body = Object.fromEntries(sent[0].body);
        expect(body).toMatchObject({
            productId: '1',
            protocol: 'gb28181',
            deviceName: 'gb_cam',
            password: 'pass_1',
            manufacturer: '大华',
        });
        expect(body).not.toHaveProperty('confirmPassword');
    });
});

describe('editing', () => {
    it('edits an rtsp camera with product and protocol locked, through edit-rtsp', async () => {
        await openList();
        fireEvent.click(within(rowOf('cam01')).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑视频设备' });
        const product = await within(dialog).findByRole('combobox', { name: /所属产品/ });
        await waitFor(() => expect(product).toHaveTextContent('园区摄像头'));
        expect(product).toHaveAttribute('aria-disabled', 'true');
        fireEvent.mouseDown(product);
        expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
        const protocol = within(dialog).getByRole('combobox', { name: /接入协议/ });
        expect(protocol).toHaveTextContent('RTSP');
        expect(protocol).toHaveAttribute('aria-disabled', 'true');
        const name = within(dialog).getByRole('textbox', { name: /设备名称/ });
        expect(name).toHaveValue('cam01');
        expect(name).toHaveAttribute('maxlength', '100');
        expect(within(dialog).queryByRole('textbox', { name: '厂商' })).not.toBeInTheDocument();

        const host = within(dialog).getByRole('textbox', { name: /设备IP/ });
        await userEvent.clear(host);
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入设备IP或域名')).toBeInTheDocument();
        expect(sent).toEqual([]);
        await userEvent.type(host, '10.1.1.1');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(sent.map((s) => s.path)).toEqual(['edit-rtsp']);
        expect(Object.fromEntries(sent[0].body)).toMatchObject({
            deviceId: '1',
            deviceName: 'cam01',
            host: '10.1.1.1',
            port: '554',
        });
    });

    it('edits a gb28181 camera through edit-gb28181 with id, deviceName, manufacturer and remark', async () => {
        await openList();
        fireEvent.click(within(rowOf('cam02')).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑视频设备' });
        expect(within(dialog).getByRole('combobox', { name: /接入协议/ })).toHaveTextContent('GB28181');
        expect(within(dialog).queryByRole('textbox', { name: /设备IP/ })).not.toBeInTheDocument();
        expect(within(dialog).queryByLabelText('密码')).not.toBeInTheDocument();
        const maker = within(dialog).getByRole('textbox', { name: '厂商' });
        expect(maker).toHaveValue('海康');
        await userEvent.clear(maker);
        await userEvent.type(maker, '宇视');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('修改成功')).toBeInTheDocument();
        expect(sent.map((s) => s.path)).toEqual(['edit-gb28181']);
        expect(Object.fromEntries(sent[0].body)).toEqual({
            id: '2',
            deviceName: 'cam02',
            manufacturer: '宇视',
            remark: '',
        });
    });
});

describe('row actions', () => {
    it('pushes a stopped rtsp camera and stops a pushing one; an unregistered gb28181 camera has neither', async () => {
        await openList();
        const stopped = rowOf('cam02').nextElementSibling as HTMLElement; // cam03: rtsp, stopped
        expect(stopped).toHaveTextContent('cam03');
        expect(within(rowOf('cam02')).queryByRole('button', { name: '推流' })).not.toBeInTheDocument();
        expect(within(rowOf('cam02')).queryByRole('button', { name: '停止推流' })).not.toBeInTheDocument();
        expect(within(stopped).queryByRole('button', { name: '停止推流' })).not.toBeInTheDocument();

        fireEvent.click(within(stopped).getByRole('button', { name: '推流' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        expect(Object.fromEntries(sent[0].body)).toEqual({ projectId: '7', deviceId: '3' });
        const stop = await within(rowOf('cam03')).findByRole('button', { name: '停止推流' });
        expect(within(rowOf('cam03')).queryByRole('button', { name: '推流' })).not.toBeInTheDocument();

        fireEvent.click(stop);
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('确定停止“cam03”推流吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await within(rowOf('cam03')).findByRole('button', { name: '推流' })).toBeInTheDocument();
        expect(sent.map((s) => s.path)).toEqual(['push', 'stop-push']);
    });

    it('deletes after its confirmation, and not when cancelled', async () => {
        await openList();
        fireEvent.click(within(rowOf('cam04')).getByRole('button', { name: '删除' }));
        let confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent('提示');
        expect(confirm).toHaveTextContent('确定删除视频设备“cam04”吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
        expect(sent).toEqual([]);

        fireEvent.click(within(rowOf('cam04')).getByRole('button', { name: '删除' }));
        confirm = await screen.findByRole('dialog');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        expect(sent.map((s) => [s.path, s.body.get('id')])).toEqual([['delete', '4']]);
        await waitFor(() => expect(screen.queryByText('cam04')).not.toBeInTheDocument());
    });
});

describe('the detail page /videoInfo/{deviceName}?deviceId=', () => {
    it('shows the header, the descriptions and the rtsp address, and pushes from the header', async () => {
        renderDefinitions([videoDevices], '/videoInfo/cam03?deviceId=3');
        const heading = await screen.findByRole('heading', { name: 'cam03' }, SLOW);
        const header = heading.closest('section') as HTMLElement;
        expect(within(header).getByText('已停止')).toBeInTheDocument();
        expect(within(header).getByText('园区摄像头')).toBeInTheDocument();
        expect(within(header).getByText('RTSP')).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '视频设备' })).toHaveAttribute('href', '/videoList');

        const info = screen.getByRole('region', { name: '设备信息' });
        expect(within(info).getByLabelText('设备状态')).toHaveTextContent('在线');
        expect(within(info).getByLabelText('添加时间')).toHaveTextContent('2025-03-01 10:00:00');
        const rtsp = screen.getByRole('region', { name: 'RTSP取流' });
        expect(within(rtsp).getByLabelText('设备IP/域名')).toHaveTextContent('192.168.1.3');
        expect(within(rtsp).getByLabelText('密码')).toHaveTextContent('已设置');
        const live = screen.getByRole('region', { name: '实时画面' });
        expect(await within(live).findByText('设备未推流，点击“推流”后在此观看实时画面')).toBeInTheDocument();
        expect(screen.queryByRole('region', { name: 'GB28181接入' })).not.toBeInTheDocument();

        fireEvent.click(within(header).getByRole('button', { name: '推流' }));
        expect(await within(header).findByRole('button', { name: '停止推流' })).toBeInTheDocument();
        expect(within(header).getByText('已激活')).toBeInTheDocument();
        expect(sent.map((s) => s.path)).toEqual(['push']);
    });

    it('edits from the header', async () => {
        renderDefinitions([videoDevices], '/videoInfo/cam01?deviceId=1');
        const heading = await screen.findByRole('heading', { name: 'cam01' }, SLOW);
        fireEvent.click(within(heading.closest('section') as HTMLElement).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑视频设备' });
        const name = within(dialog).getByRole('textbox', { name: /设备名称/ });
        await userEvent.clear(name);
        await userEvent.type(name, 'cam01_new');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByRole('heading', { name: 'cam01_new' })).toBeInTheDocument();
    });

    it('plays a gb28181 camera on demand (点播) once it has registered; 推流 stays rtsp only (SPEC)', async () => {
        videos[1].status = 'ONLINE';
        renderDefinitions([videoDevices], '/videoInfo/cam02?deviceId=2');
        const heading = await screen.findByRole('heading', { name: 'cam02' }, SLOW);
        const header = heading.closest('section') as HTMLElement;
        expect(within(header).queryByRole('button', { name: '推流' })).not.toBeInTheDocument();
        fireEvent.click(within(header).getByRole('button', { name: '点播' }));
        expect(await within(header).findByRole('button', { name: '停止点播' })).toBeInTheDocument();
        expect(within(header).queryByRole('button', { name: '停止推流' })).not.toBeInTheDocument();
        expect(sent.map((s) => [s.path, s.body.get('deviceId')])).toEqual([['push', '2']]);
        expect(screen.getByRole('region', { name: '实时画面' })).toBeInTheDocument();
    });

    it('shows an unregistered gb28181 camera with its SIP fields and no push', async () => {
        renderDefinitions([videoDevices], '/videoInfo/cam02?deviceId=2');
        const heading = await screen.findByRole('heading', { name: 'cam02' }, SLOW);
        const header = heading.closest('section') as HTMLElement;
        for (const name of ['推流', '停止推流', '点播', '停止点播'])
            expect(within(header).queryByRole('button', { name })).not.toBeInTheDocument();
        const gb = screen.getByRole('region', { name: 'GB28181接入' });
        expect(within(gb).getByLabelText('厂商')).toHaveTextContent('海康');
        expect(within(gb).getByLabelText('SIP服务器ID')).toHaveTextContent('34020000002000000001');
        expect(screen.queryByRole('region', { name: 'RTSP取流' })).not.toBeInTheDocument();
    });

    it('deletes from the header and goes back to the list', async () => {
        renderDefinitions([videoDevices], '/videoInfo/cam05?deviceId=5');
        const heading = await screen.findByRole('heading', { name: 'cam05' }, SLOW);
        fireEvent.click(within(heading.closest('section') as HTMLElement).getByRole('button', { name: '删除' }));
        fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/videoList'));
        expect(videos.some((v) => v.deviceId === 5)).toBe(false);
    });

    it('says what is wrong when the device is missing or the link names none', async () => {
        renderDefinitions([videoDevices], '/videoInfo/ghost?deviceId=99');
        expect(await screen.findByText(/未找到视频设备 ghost/, {}, SLOW)).toBeInTheDocument();
        expect(screen.getByText('视频设备不存在')).toBeInTheDocument();
        expect(screen.getByRole('link', { name: '返回视频设备' })).toHaveAttribute('href', '/videoList');
    });

    it('says the link names no device without asking the platform', async () => {
        renderDefinitions([videoDevices], '/videoInfo/cam01');
        expect(await screen.findByText(/缺少设备ID/, {}, SLOW)).toBeInTheDocument();
    });
});
