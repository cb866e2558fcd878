import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { chooseOption, currentLocation, mswServer, platformHandler, renderApp } from './helpers';

/**
 * The console screens of issue 14's reports, platform, apps and help parts against the in-process platform (demo
 * data): the header's 平台手册, /platform, /report, /appconfig and /applymanage.
 */
let platform: TestServer;
beforeAll(async () => {
    platform = await createTestServer({ seed: true });
});
afterAll(() => platform?.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

describe('help, platform, report and apps screens', () => {
    it('opens the user manual from the header with its table of contents', async () => {
        renderApp('/introduce');
        fireEvent.click(await screen.findByRole('link', { name: /平台手册/ }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/usermanual'));
        const toc = await screen.findByRole('navigation', { name: '目录' });
        expect(within(toc).getByRole('button', { name: '用 mosquitto_pub 接入' })).toBeInTheDocument();
        expect(within(toc).getByRole('button', { name: '连接被拒绝时' })).toBeInTheDocument();
    });

    it('/platform tells the MQTT endpoints, the store and the retention', async () => {
        renderApp('/platform');
        expect(await screen.findByText(/^mqtt:\/\/localhost:1883$/)).toBeInTheDocument();
        expect(screen.getByText('PGlite（内嵌数据库）')).toBeInTheDocument();
        expect(screen.getByText('30 天（LOG_RETENTION_DAYS）')).toBeInTheDocument();
        const amqp = screen.getByRole('region', { name: '应用接入（AMQP 1.0）' });
        expect(within(amqp).getByText(`amqp://localhost:${platform.config.amqpPort}`)).toBeInTheDocument();
    });

    it('/platform names no address for a listener whose port another program holds, and says what to set', async () => {
        // As on this machine with Mosquitto on 1883 and RabbitMQ on 5672 and the defaults kept.
        platform.config.unboundListeners.push('mqtt', 'amqp');
        try {
            renderApp('/platform');
            expect(
                await screen.findByText('MQTT 端口被其他程序占用，设备暂不能通过 TCP 接入（设置 MQTT_PORT 后重启）'),
            ).toBeInTheDocument();
            expect(
                screen.getByText('AMQP 端口被其他程序占用，服务端订阅暂不能消费（设置 AMQP_PORT 后重启）'),
            ).toBeInTheDocument();
            expect(screen.queryByText(/^mqtt:\/\/localhost:/)).toBeNull();
            expect(screen.queryByRole('button', { name: '复制 MQTT（TCP）' })).toBeNull();
        } finally {
            platform.config.unboundListeners.length = 0;
        }
    });

    it('/vaServices says which added services run here and leads to each', async () => {
        renderApp('/vaServices');
        const amqp = await screen.findByRole('region', { name: '服务端订阅（AMQP 1.0）' });
        // TLS is on by default: the consumers' amqps address stands beside the plain one.
        expect(
            within(amqp).getByText(
                `运行中：amqp://localhost:${platform.config.amqpPort}，amqps://localhost:${platform.config.amqpsPort}`,
            ),
        ).toBeInTheDocument();
        const video = screen.getByRole('region', { name: '视频接入' });
        expect(within(video).getByText(/GB28181 摄像头注册地址 udp:\/\/localhost:\d+/)).toBeInTheDocument();
        expect(screen.getByRole('region', { name: '多实例集群' })).toHaveTextContent('未开启：单实例运行');
        expect(within(amqp).getByRole('link', { name: '管理订阅' })).toHaveAttribute('href', '/subscription');
    });

    it('/report shows the figures and the rows per day and product, and offers the CSV', async () => {
        renderApp('/report');
        expect(await screen.findByText('设备总数')).toBeInTheDocument();
        const table = await screen.findByRole('table', { name: '各产品每日统计' });
        await waitFor(() => expect(within(table).getAllByText('智能路灯_L1').length).toBeGreaterThan(0));
        // The engine's download action follows the call's URL through an <a download> it clicks.
        const clicks: HTMLAnchorElement[] = [];
        vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
            clicks.push(this);
        });
        fireEvent.click(screen.getByRole('button', { name: '导出 CSV' }));
        expect(clicks.map((a) => new URL(a.href).pathname)).toEqual(['/api/report/export']);
        vi.restoreAllMocks();
    });

    it('/appconfig publishes an app through 上架应用 and finds it by name', async () => {
        renderApp('/appconfig');
        // By text within buttons: a role query over the whole console (menu included) takes seconds per try in jsdom
        // on a loaded machine, longer than findBy waits.
        fireEvent.click(await screen.findByText('上架应用', { selector: 'button' }));
        const dialog = await screen.findByRole('dialog', { name: '上架应用' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入应用名称')).toBeInTheDocument();
        fireEvent.change(within(dialog).getByRole('textbox', { name: /应用名称/ }), { target: { value: '水务巡检' } });
        await chooseOption(within(dialog).getByRole('combobox', { name: /应用领域/ }), '智慧城市');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('上架成功')).toBeInTheDocument();
        const row = (await screen.findByText('水务巡检')).closest('tr')!;
        expect(within(row).getByText('已上架')).toBeInTheDocument();
        expect(within(row).getByText('智慧城市')).toBeInTheDocument();
    });

    it('/applymanage lists published apps with the use switch and 添加告警', async () => {
        renderApp('/applymanage');
        const row = (await screen.findByText('路灯远程管控')).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '添加告警 路灯远程管控' }));
        const dialog = await screen.findByRole('dialog', { name: '添加告警：路灯远程管控' });
        fireEvent.change(within(dialog).getByRole('textbox', { name: /告警名称/ }), { target: { value: '灯具故障' } });
        fireEvent.change(within(dialog).getByRole('textbox', { name: /Webhook 地址/ }), {
            target: { value: 'https://example.com/hook' },
        });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(within(row).getByText('1')).toBeInTheDocument());
    });
});
