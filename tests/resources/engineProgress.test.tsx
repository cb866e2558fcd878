import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type Row } from '../../src/engine';
import { mswServer, ok, renderDefinitions } from './helpers';

/**
 * The progress display (field type 'progress'): a bar with its text in a list column and in descriptions, and the
 * same bar beside a call action while it runs.
 */

const BATCHES = [
    { batchId: 'B1', name: '一号批次', done: 12, failed: 1, total: 20 },
    { batchId: 'B2', name: '二号批次', done: 0, failed: 0, total: 0 },
];
const percent = (r: Row) => (Number(r.total) ? ((Number(r.done) + Number(r.failed)) / Number(r.total)) * 100 : 0);

const batches = defineResource<AnyPaths>({
    name: 'batches',
    label: '升级批次',
    idField: 'batchId',
    fields: {
        name: { label: '批次' },
        progress: {
            label: '进度',
            type: 'progress',
            progress: {
                value: percent,
                text: (r) => `${Math.round(percent(r))}%（成功${r.done} / 失败${r.failed} / 共${r.total}）`,
                color: (r) => (Number(r.failed) > 0 ? 'warning' : 'primary'),
            },
        },
        rate: { label: '完成率', type: 'progress' },
    },
    api: {
        success: 'code200',
        custom: {
            batches: { get: '/api/test/batches', read: 'data' },
            batch: { get: '/api/test/batch', read: 'data' },
            retry: { post: '/api/test/batch/retry', read: 'data' },
        },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/batches',
            title: '升级批次',
            record: { call: 'batch' },
            sections: [
                { kind: 'fields', title: '基本信息', fields: ['name', 'progress', 'rate'] },
                {
                    kind: 'actions',
                    actions: [
                        {
                            kind: 'call',
                            label: '重试失败设备',
                            call: { call: 'retry' },
                            progress: '正在重新下发…',
                            success: '已重新下发',
                        },
                        { kind: 'call', label: '暂停', call: { call: 'retry' }, success: '已暂停' },
                    ],
                },
                {
                    kind: 'list',
                    list: {
                        source: { call: 'batches' },
                        columns: ['name', 'progress'],
                        rowId: 'batchId',
                        paging: false,
                    },
                },
            ],
        },
    ],
});

describe('progress display', () => {
    it('shows a bar with its text in a list column and in descriptions', async () => {
        mswServer.use(
            http.get('/api/test/batches', () => ok(BATCHES)),
            http.get('/api/test/batch', () => ok({ ...BATCHES[0], rate: 65 })),
        );
        renderDefinitions([batches], '/batches');
        const text = '65%（成功12 / 失败1 / 共20）';
        const table = await screen.findByRole('table');
        const bars = await within(table).findAllByRole('progressbar', { name: '进度' });
        expect(bars.map((b) => b.getAttribute('aria-valuenow'))).toEqual(['65', '0']);
        expect(bars[0]).toHaveAttribute('aria-valuetext', text);
        expect(within(table).getByText(text)).toBeInTheDocument();
        expect(within(table).getByText('0%（成功0 / 失败0 / 共0）')).toBeInTheDocument();
        // Descriptions: the computed one, and a plain percentage field read as it is.
        const all = screen.getAllByRole('progressbar', { name: '完成率' });
        expect(all).toHaveLength(1);
        expect(all[0]).toHaveAttribute('aria-valuenow', '65');
        expect(all[0]).toHaveAttribute('aria-valuetext', '65%');
        expect(screen.getAllByText(text).length).toBe(2);
    });

    it('shows the bar beside a call action while the call runs, then the success message', async () => {
        let release: () => void = () => undefined;
        mswServer.use(
            http.get('/api/test/batches', () => ok([])),
            http.get('/api/test/batch', () => ok(BATCHES[0])),
            http.post('/api/test/batch/retry', () => new Promise((resolve) => (release = () => resolve(ok({}))))),
        );
        renderDefinitions([batches], '/batches');
        fireEvent.click(await screen.findByRole('button', { name: '重试失败设备' }));
        const bar = await screen.findByRole('progressbar', { name: '重试失败设备' });
        expect(bar).not.toHaveAttribute('aria-valuenow');
        expect(screen.getByText('正在重新下发…')).toBeInTheDocument();
        expect(screen.getByRole('button', { name: '重试失败设备' })).toBeDisabled();
        release();
        expect(await screen.findByText('已重新下发')).toBeInTheDocument();
        await waitFor(() =>
            expect(screen.queryByRole('progressbar', { name: '重试失败设备' })).not.toBeInTheDocument(),
        );
        // Without its own text, the bar says 正在{label}….
        fireEvent.click(screen.getByRole('button', { name: '暂停' }));
        expect(await screen.findByText('正在暂停…')).toBeInTheDocument();
        release();
        expect(await screen.findByText('已暂停')).toBeInTheDocument();
    });
});
