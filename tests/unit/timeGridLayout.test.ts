import { describe, expect, it } from 'vitest';
import {
    daySegments,
    labelColors,
    layoutLanes,
    minutesOf,
    PALETTE,
    weekSegments,
} from '../../src/engine/page/timeGridLayout';

/** Two parts overlap when each starts before the other ends. */
const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
    a.start < b.end && b.start < a.end;

describe('layoutLanes: overlapping parts of a row in lanes', () => {
    it('puts two overlapping parts in two lanes and a later one back in the first', () => {
        const parts = [
            { start: 480, end: 720 }, // 08:00–12:00
            { start: 600, end: 840 }, // 10:00–14:00, overlaps the first
            { start: 720, end: 900 }, // 12:00–15:00, starts as the first ends
        ];
        expect(layoutLanes(parts)).toEqual({ lanes: [0, 1, 0], count: 2 });
    });

    it('answers lanes in the parts’ own order, whatever order they come in', () => {
        const parts = [
            { start: 600, end: 840 },
            { start: 480, end: 720 },
        ];
        expect(layoutLanes(parts)).toEqual({ lanes: [1, 0], count: 2 });
    });

    it('never shares a lane between overlapping parts, and uses as many lanes as overlap at once', () => {
        // Deterministic pseudo-random parts (a small LCG) so a failure can be replayed.
        let seed = 7;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        for (let round = 0; round < 50; round += 1) {
            const parts = Array.from({ length: 12 }, () => {
                const start = Math.floor(next() * 1380);
                return { start, end: start + 15 + Math.floor(next() * 300) };
            });
            const { lanes, count } = layoutLanes(parts);
            for (let i = 0; i < parts.length; i += 1) {
                for (let j = i + 1; j < parts.length; j += 1) {
                    if (overlap(parts[i], parts[j])) expect(lanes[i]).not.toBe(lanes[j]);
                }
            }
            // The most parts covering one minute is the fewest lanes possible; the greedy layout reaches it.
            const deepest = Math.max(
                ...parts.map((p) => parts.filter((q) => q.start <= p.start && p.start < q.end).length),
            );
            expect(count).toBe(deepest);
        }
    });

    it('answers one lane for a row without parts', () => {
        expect(layoutLanes([])).toEqual({ lanes: [], count: 1 });
    });
});

describe('weekSegments: week spans as the parts each weekday shows', () => {
    it('reads HH:mm (and HH:mm:ss), refusing what is not a time', () => {
        expect([minutesOf('08:30'), minutesOf('8:05:59'), minutesOf('24:00')]).toEqual([510, 485, 1440]);
        expect([minutesOf('25:00'), minutesOf('12:60'), minutesOf('noon'), minutesOf(undefined)]).toEqual([
            undefined,
            undefined,
            undefined,
            undefined,
        ]);
    });

    it('cuts a span crossing midnight into its day and the next, Sunday’s into Monday', () => {
        const { segments } = weekSegments([
            { key: 'a', label: '张三', weekday: 3, start: '22:00', end: '06:00' },
            { key: 'b', label: '李四', weekday: 7, start: '20:00', end: '02:30' },
        ]);
        const parts = segments.map((s) => [s.row, s.start, s.end, s.continuesBefore, s.continuesAfter, s.range]);
        expect(parts).toEqual([
            ['3', 1320, 1440, false, true, '周三 22:00–次日06:00'],
            ['4', 0, 360, true, false, '周三 22:00–次日06:00'],
            ['7', 1200, 1440, false, true, '周日 20:00–次日02:30'],
            ['1', 0, 150, true, false, '周日 20:00–次日02:30'],
        ]);
    });

    it('reads 00:00–00:00 as the whole day and 09:00–24:00 as ending at midnight, and counts unreadable spans', () => {
        const { segments, invalid } = weekSegments([
            { key: 'a', label: 'A', weekday: 1, start: '00:00', end: '00:00' },
            { key: 'b', label: 'B', weekday: 2, start: '09:00', end: '24:00' },
            { key: 'c', label: 'C', weekday: 8, start: '09:00', end: '10:00' },
            { key: 'd', label: 'D', weekday: 1, start: '9点', end: '10:00' },
        ]);
        expect(segments.map((s) => [s.row, s.start, s.end, s.continuesAfter])).toEqual([
            ['1', 0, 1440, false],
            ['2', 540, 1440, false],
        ]);
        expect(invalid).toBe(2);
    });
});

describe('daySegments: ISO spans as the part one day shows', () => {
    it('keeps the part inside the day, says where it goes on, and leaves out other days', () => {
        const { segments, invalid } = daySegments(
            [
                { key: 1, label: '升级窗口', row: 'dev-1', start: '2026-12-07T22:00:00', end: '2026-12-08T02:00:00' },
                { key: 2, label: '升级窗口', row: 'dev-2', start: '2026-12-06T23:00:00', end: '2026-12-07T01:30:00' },
                { key: 3, label: '巡检', row: 'dev-1', start: '2026-12-07T09:15:00', end: '2026-12-07T10:00:00' },
                { key: 4, label: '昨天', row: 'dev-1', start: '2026-12-06T09:00:00', end: '2026-12-06T10:00:00' },
                { key: 5, label: '反了', row: 'dev-1', start: '2026-12-07T10:00:00', end: '2026-12-07T09:00:00' },
            ],
            '2026-12-07',
        );
        expect(segments.map((s) => [s.id, s.row, s.start, s.end, s.continuesBefore, s.continuesAfter])).toEqual([
            ['1', 'dev-1', 1320, 1440, false, true],
            ['2', 'dev-2', 0, 90, true, false],
            ['3', 'dev-1', 555, 600, false, false],
        ]);
        expect(segments[0].range).toBe('2026-12-07 22:00 – 2026-12-08 02:00');
        expect(segments[2].range).toBe('2026-12-07 09:15–10:00');
        expect(invalid).toBe(1);
    });
});

describe('labelColors: a colour per label', () => {
    it('gives distinct labels distinct palette colours, whatever order they come in', () => {
        const labels = ['张三', '李四', '王五', '赵六', '钱七'];
        const colors = labelColors(labels);
        expect(new Set(Object.values(colors)).size).toBe(labels.length);
        for (const color of Object.values(colors)) expect(PALETTE).toContain(color);
        expect(labelColors([...labels].reverse())).toEqual(colors);
    });

    it('keeps the colours the definition gives', () => {
        expect(labelColors(['张三', '李四'], { 张三: '#000000' }).张三).toBe('#000000');
    });
});
