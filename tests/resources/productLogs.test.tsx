import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { bodyRows, mswServer, platformHandler, renderApp, shellHandlers } from './helpers';

async function logsOf(server: TestServer): Promise<Array<{ id: number; log: string; opTime: string }>> {
    const answer = await server.fetch('/ms3/productLog/find', {
        method: 'POST',
        body: new URLSearchParams({ page: '1', size: '100' }),
    });
    return (await answer.json()).data.records;
}

async function addLog(server: TestServer, log: string) {
    const answer = await server.fetch('/ms3/productLog/save', { method: 'POST', body: new URLSearchParams({ log }) });
    expect(answer.status).toBe(200);
}

describe('product update log against the platform', () => {
    let platform: TestServer;
    beforeAll(async () => {
        platform = await createTestServer({ seed: false });
    });
    afterAll(() => platform.close());
    beforeEach(async () => {
        mswServer.use(platformHandler(platform));
        for (const { id } of await logsOf(platform)) {
            await platform.fetch('/ms3/productLog/delete', {
                method: 'POST',
                body: new URLSearchParams({ id: String(id) }),
            });
        }
    });

    it('lists the entries with their date and content, newest first', async () => {
        await addLog(platform, '新增物模型导入功能');
        await addLog(platform, '支持网关子设备');
        renderApp('/productLog');
        expect(await screen.findByText('支持网关子设备')).toBeInTheDocument();
        for (const header of ['日期', '内容', '操作']) {
            expect(screen.getByRole('columnheader', { name: header })).toBeInTheDocument();
        }
        const rows = bodyRows();
        expect(rows).toHaveLength(2);
        expect(rows[0]).toHaveTextContent('支持网关子设备');
        expect(rows[1]).toHaveTextContent('新增物模型导入功能');
        const [newest] = await logsOf(platform);
        expect(within(rows[0]).getByText(newest.opTime)).toBeInTheDocument();
        expect(newest.opTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('adds an entry: asks for content first, then says 新增成功 and shows it', async () => {
        renderApp('/productLog');
        // The table shows loading rows first; the empty state once the (empty) list has come.
        expect(await screen.findByText('暂无数据')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '新增日志' }));
        const dialog = await screen.findByRole('dialog', { name: '新增产品更新日志' });

        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText('请输入产品日志')).toBeInTheDocument();
        expect(await logsOf(platform)).toHaveLength(0);

        await userEvent.type(within(dialog).getByLabelText(/内容/), '产品列表支持按名称搜索');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('新增成功')).toBeInTheDocument();
        expect(await screen.findByRole('cell', { name: '产品列表支持按名称搜索' })).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新增产品更新日志' })).not.toBeInTheDocument());
        expect((await logsOf(platform)).map((l) => l.log)).toEqual(['产品列表支持按名称搜索']);
    });

    it('deletes an entry after confirmation', async () => {
        await addLog(platform, '要删除的日志');
        await addLog(platform, '保留的日志');
        renderApp('/productLog');
        const row = (await screen.findByText('要删除的日志')).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(within(confirm).getByText('是否删除此日志?')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText('要删除的日志')).not.toBeInTheDocument());
        expect(screen.getByText('保留的日志')).toBeInTheDocument();
        expect((await logsOf(platform)).map((l) => l.log)).toEqual(['保留的日志']);
    });
});

describe('product update log with odd answers', () => {
    it('shows the ms3 failure message when a delete is refused, and keeps the row', async () => {
        mswServer.use(
            ...shellHandlers(),
            http.post('*/ms3/productLog/find', () =>
                HttpResponse.json({
                    code: '000000',
                    msg: 'success',
                    data: { records: [{ id: 9, opTime: '2025-01-02 03:04:05', log: '旧日志' }], total: 1 },
                }),
            ),
            http.post('*/ms3/productLog/delete', () => HttpResponse.json({ code: '999999', msg: '日志已被锁定' })),
        );
        renderApp('/productLog');
        const row = (await screen.findByText('旧日志')).closest('tr')!;
        expect(within(row).getByText('2025-01-02 03:04:05')).toBeInTheDocument();
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('日志已被锁定')).toBeInTheDocument();
        expect(screen.getByText('旧日志')).toBeInTheDocument();
    });
});
