import { fireEvent, screen, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths, type DaySpan, type Row, type WeekSpan } from '../../src/engine';
import { mswServer, ok, renderDefinitions } from './helpers';

/**
 * Issue 40 item 3: the `timeGrid` section. A contact group's on-call rota as a week × hour grid read from the record,
 * and its devices' OTA windows of one day as a day × resource grid read from a call of their own.
 */

// The platform's rota rows, in its own words: the definition shapes them into WeekSpans.
const ROTA = [
    { shiftId: 1, contactName: '张三', weekday: 1, startTime: '09:00', endTime: '18:00' },
    { shiftId: 2, contactName: '李四', weekday: 1, startTime: '12:00', endTime: '20:00' },
    { shiftId: 3, contactName: '王五', weekday: 3, startTime: '22:00', endTime: '06:00' },
    { shiftId: 4, contactName: '值班经理', weekday: 5, startTime: '08:00', endTime: '10:00', color: '#000000' },
];
const GROUPS: Record<string, Row> = {
    9: { id: 9, name: '值班一组', rota: ROTA },
    10: { id: 10, name: '值班二组', rota: [] },
};
const DEVICES = [
    { id: 'cam-01', label: '1号摄像头' },
    { id: 'cam-02', label: '2号摄像头' },
];
const WINDOWS: DaySpan[] = [
    { key: 'w1', label: '固件 v2.1', row: 'cam-01', start: '2026-12-07T02:00:00', end: '2026-12-07T04:00:00' },
    // Began the evening before: its morning part shows from 00:00.
    { key: 'w2', label: '固件 v2.1', row: 'cam-02', start: '2026-12-06T23:00:00', end: '2026-12-07T01:30:00' },
];

const rotaSpans = (rows: Row[]): WeekSpan[] =>
    rows.map((r) => ({
        key: r.shiftId as number,
        label: r.contactName as string,
        weekday: r.weekday as number,
        start: r.startTime as string,
        end: r.endTime as string,
        color: r.color as string | undefined,
    }));

const contactGroups = defineResource<AnyPaths>({
    name: 'contactGroups',
    label: '联系组',
    path: 'contactGroup',
    fields: { name: { label: '组名称' } },
    views: { show: false, edit: false, create: false },
    pages: [
        {
            path: '/contactGroupDetail/:id/*',
            title: '联系组详情',
            record: { call: 'getOne', params: ({ route }) => ({ id: route.id }) },
            tabs: [
                {
                    key: 'rota',
                    label: '值班表',
                    sections: [
                        {
                            kind: 'timeGrid',
                            title: '每周值班',
                            grid: {
                                kind: 'week',
                                spans: ({ record }) => rotaSpans((record.rota as Row[]) ?? []),
                                empty: '暂无值班安排',
                            },
                        },
                    ],
                },
                {
                    key: 'ota',
                    label: '升级窗口',
                    sections: [
                        {
                            kind: 'timeGrid',
                            title: '设备升级窗口',
                            grid: {
                                kind: 'day',
                                day: '2026-12-07',
                                source: { call: 'windows', params: ({ record }) => ({ groupId: record.id }) },
                                spans: 'spans',
                                rows: 'devices',
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        getOne: { get: '/api/test/contactGroup', params: (r) => ({ id: r.id }), read: 'data' },
        custom: { windows: { get: '/api/test/contactGroup/otaWindows', read: 'data' } },
    },
});

function serve(asked: string[] = []) {
    mswServer.use(
        http.get('*/api/test/contactGroup', ({ request }) => {
            return ok(GROUPS[new URL(request.url).searchParams.get('id') ?? '']);
        }),
        http.get('*/api/test/contactGroup/otaWindows', ({ request }) => {
            asked.push(new URL(request.url).searchParams.get('groupId') ?? '');
            return ok({ devices: DEVICES, spans: WINDOWS });
        }),
    );
}

/** A span's place on its row's 24 hours, in percent of the row: [left, width]. */
const placeOf = (span: HTMLElement) => [parseFloat(span.style.left), parseFloat(span.style.width)];
const percent = (hours: number) => (hours / 24) * 100;
/** The spans a row (a weekday, a device) shows. */
const spansIn = (row: string) => within(screen.getByRole('list', { name: row })).queryAllByRole('listitem');

async function openRota(id = 9) {
    serve();
    renderDefinitions([contactGroups], `/contactGroupDetail/${id}/rota`);
    return screen.findByRole('region', { name: '每周值班' });
}

describe('the week grid (weekday × hour), from the record', () => {
    it('shows seven weekday rows and puts each span on its weekday at its hours', async () => {
        await openRota();
        await screen.findByRole('list', { name: '周一' });
        const rows = ['周一', '周二', '周三', '周四', '周五', '周六', '周日'];
        for (const row of rows) expect(screen.getByRole('list', { name: row })).toBeInTheDocument();
        const zhang = screen.getByRole('listitem', { name: '张三 周一 09:00–18:00' });
        expect(spansIn('周一')).toContain(zhang);
        const [left, width] = placeOf(zhang);
        expect(left).toBeCloseTo(percent(9));
        expect(width).toBeCloseTo(percent(9));
        expect(spansIn('周二')).toHaveLength(0);
        expect(spansIn('周五').map((s) => s.textContent)).toEqual(['值班经理']);
    });

    it('lays two overlapping shifts in separate lanes, each whole', async () => {
        await openRota();
        const zhang = await screen.findByRole('listitem', { name: '张三 周一 09:00–18:00' });
        const li = screen.getByRole('listitem', { name: '李四 周一 12:00–20:00' });
        expect(zhang.dataset.lane).not.toBe(li.dataset.lane);
        expect(zhang.style.top).not.toBe(li.style.top);
        // Neither is shortened by the other: each spans its own whole time, its whole label written.
        expect(placeOf(li)[0]).toBeCloseTo(percent(12));
        expect(placeOf(li)[1]).toBeCloseTo(percent(8));
        expect(placeOf(zhang)[1]).toBeCloseTo(percent(9));
        expect([zhang.textContent, li.textContent]).toEqual(['张三', '李四']);
        // The row is as tall as its two lanes.
        const monday = screen.getByRole('list', { name: '周一' });
        const tuesday = screen.getByRole('list', { name: '周二' });
        const heightOf = (row: HTMLElement) => parseFloat(getComputedStyle(row).height);
        expect(heightOf(tuesday)).toBeGreaterThan(0);
        expect(heightOf(monday)).toBe(2 * heightOf(tuesday));
    });

    it('shows a shift crossing midnight on its day until 24:00 and on the next from 00:00', async () => {
        await openRota();
        await screen.findByRole('list', { name: '周三' });
        const [wednesday] = spansIn('周三');
        const [thursday] = spansIn('周四');
        for (const part of [wednesday, thursday]) {
            expect(part).toHaveAccessibleName('王五 周三 22:00–次日06:00');
        }
        expect(placeOf(wednesday)[0]).toBeCloseTo(percent(22));
        expect(placeOf(wednesday)[1]).toBeCloseTo(percent(2));
        expect(placeOf(thursday)).toEqual([0, expect.closeTo(percent(6)) as number]);
    });

    it('says the full label and time range in a tooltip', async () => {
        await openRota();
        const [wednesday] = await within(await screen.findByRole('list', { name: '周三' })).findAllByRole('listitem');
        fireEvent.mouseOver(wednesday);
        const tooltip = await screen.findByRole('tooltip');
        expect(tooltip).toHaveTextContent('王五');
        expect(tooltip).toHaveTextContent('周三 22:00–次日06:00');
    });

    it('lists each person once in the legend, in the colour of their spans', async () => {
        await openRota();
        const legend = await screen.findByRole('list', { name: '图例' });
        const entries = within(legend).getAllByRole('listitem');
        expect(entries.map((e) => e.textContent)).toEqual(['张三', '李四', '王五', '值班经理']);
        for (const entry of entries) {
            const swatch = entry.querySelector('[aria-hidden]') as HTMLElement;
            const spans = screen
                .getAllByRole('listitem')
                .filter((s) => s.getAttribute('aria-label')?.startsWith(`${entry.textContent} `));
            expect(spans.length).toBeGreaterThan(0);
            for (const span of spans) expect(span.style.backgroundColor).toBe(swatch.style.backgroundColor);
        }
        // Different people, different colours; a span's own colour wins over the palette.
        const colors = entries.map((e) => (e.querySelector('[aria-hidden]') as HTMLElement).style.backgroundColor);
        expect(new Set(colors).size).toBe(4);
        expect(colors[3]).toBe('rgb(0, 0, 0)');
    });

    it('says the empty text when the group has no shifts, and draws no grid', async () => {
        const region = await openRota(10);
        expect(await within(region).findByText('暂无值班安排')).toBeInTheDocument();
        expect(within(region).queryByRole('list', { name: '周一' })).toBeNull();
        expect(within(region).queryByRole('list', { name: '图例' })).toBeNull();
    });
});

describe('the day grid (resource × hour), from a call of its own', () => {
    it('shows a row per device, each window at its hours of the day, and one from the evening before from 00:00', async () => {
        const asked: string[] = [];
        serve(asked);
        renderDefinitions([contactGroups], '/contactGroupDetail/9/ota');
        const region = await screen.findByRole('region', { name: '设备升级窗口' });
        const first = await within(region).findByRole('list', { name: '1号摄像头' });
        expect(asked).toEqual(['9']);
        expect(within(region).getByText('2026-12-07')).toBeInTheDocument();
        const [window1] = within(first).getAllByRole('listitem');
        expect(window1).toHaveAccessibleName('固件 v2.1 2026-12-07 02:00–04:00');
        expect(placeOf(window1)).toEqual([expect.closeTo(percent(2)) as number, expect.closeTo(percent(2)) as number]);
        const [window2] = spansIn('2号摄像头');
        expect(window2).toHaveAccessibleName('固件 v2.1 2026-12-06 23:00 – 2026-12-07 01:30');
        expect(placeOf(window2)).toEqual([0, expect.closeTo(percent(1.5)) as number]);
        const legend = within(region).getByRole('list', { name: '图例' });
        expect(
            within(legend)
                .getAllByRole('listitem')
                .map((e) => e.textContent),
        ).toEqual(['固件 v2.1']);
    });
});
