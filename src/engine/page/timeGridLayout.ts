/**
 * The time grid's arithmetic, without React: spans cut into the parts each row (a weekday, a person or device) shows,
 * overlapping parts laid out in lanes, and colours by label. Minutes count from the row's midnight (0 to 1440).
 */
import dayjs from 'dayjs';
import type { DaySpan, WeekSpan } from '../vocabulary';

export const DAY_MINUTES = 24 * 60;
export const WEEKDAYS = ['周一', '周二', '周三', '周四', '周五', '周六', '周日'];

/** The part of one span a row shows. */
export interface GridSegment {
    /** Unique in the grid: the span's key and the part. */
    id: string;
    /** The row it shows in: the weekday ('1'..'7') or the day grid's row id, as text. */
    row: string;
    label: string;
    color?: string;
    /** Minutes from the row's midnight. */
    start: number;
    end: number;
    /** The span began before this row's day (crosses the midnight before) or goes on after it. */
    continuesBefore: boolean;
    continuesAfter: boolean;
    /** The whole span's time range, as the tooltip says it. */
    range: string;
}

/** The parts the rows show, and how many spans could not be read (a time that is not 'HH:mm', an unknown weekday). */
export interface GridSegments {
    segments: GridSegment[];
    invalid: number;
}

/** 'HH:mm' (or 'HH:mm:ss') as minutes from midnight, '24:00' as 1440; undefined when it is not a time. */
export function minutesOf(time: unknown): number | undefined {
    const match = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(String(time ?? '').trim());
    if (!match) return undefined;
    const minutes = Number(match[1]) * 60 + Number(match[2]);
    if (Number(match[2]) > 59 || minutes > DAY_MINUTES) return undefined;
    return minutes;
}

/** Minutes as 'HH:mm'. */
export function clockOf(minutes: number): string {
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** A week span's start and end in minutes from its own day's midnight; an end not after the start is the next day's. */
function weekBounds(span: WeekSpan): [number, number] | undefined {
    const start = minutesOf(span.start);
    const end = minutesOf(span.end);
    const weekday = Number(span.weekday);
    if (start === undefined || end === undefined || start === DAY_MINUTES) return undefined;
    if (!Number.isInteger(weekday) || weekday < 1 || weekday > 7) return undefined;
    return [start, end > start ? end : end + DAY_MINUTES];
}

/** 周一 22:00–次日06:00: the weekday, the start and the end, marked 次日 when it is on the next day. */
function weekRange(weekday: number, start: number, end: number): string {
    const to = end > DAY_MINUTES ? `次日${clockOf(end - DAY_MINUTES)}` : clockOf(end);
    return `${WEEKDAYS[weekday - 1]} ${clockOf(start)}–${to}`;
}

/** Week spans as the parts each weekday shows: a span crossing midnight is on its day and the next (Sunday's on Monday). */
export function weekSegments(spans: WeekSpan[]): GridSegments {
    const segments: GridSegment[] = [];
    let invalid = 0;
    for (const span of spans) {
        const bounds = weekBounds(span);
        if (!bounds) {
            invalid += 1;
            continue;
        }
        const [start, end] = bounds;
        const weekday = Number(span.weekday);
        const base = { label: String(span.label ?? ''), color: span.color, range: weekRange(weekday, start, end) };
        const crosses = end > DAY_MINUTES;
        segments.push({
            ...base,
            id: `${String(span.key)}:0`,
            row: String(weekday),
            start,
            end: Math.min(end, DAY_MINUTES),
            continuesBefore: false,
            continuesAfter: crosses,
        });
        if (crosses) {
            segments.push({
                ...base,
                id: `${String(span.key)}:1`,
                row: String((weekday % 7) + 1),
                start: 0,
                end: end - DAY_MINUTES,
                continuesBefore: true,
                continuesAfter: false,
            });
        }
    }
    return { segments, invalid };
}

/** 2026-12-07 22:00–23:30, or 12-07 22:00 – 12-08 06:00 across days. */
function dayRange(start: dayjs.Dayjs, end: dayjs.Dayjs): string {
    if (start.isSame(end, 'day')) return `${start.format('YYYY-MM-DD HH:mm')}–${end.format('HH:mm')}`;
    return `${start.format('YYYY-MM-DD HH:mm')} – ${end.format('YYYY-MM-DD HH:mm')}`;
}

/** Day spans as the parts `day` ('YYYY-MM-DD', local time) shows; spans outside the day are left out, not invalid. */
export function daySegments(spans: DaySpan[], day: string): GridSegments {
    const dayStart = dayjs(day).startOf('day');
    const dayEnd = dayStart.add(1, 'day');
    const segments: GridSegment[] = [];
    let invalid = 0;
    for (const span of spans) {
        const start = dayjs(span.start);
        const end = dayjs(span.end);
        if (!start.isValid() || !end.isValid() || !end.isAfter(start) || span.row === undefined) {
            invalid += 1;
            continue;
        }
        if (!end.isAfter(dayStart) || !start.isBefore(dayEnd)) continue;
        const from = start.isBefore(dayStart) ? 0 : start.diff(dayStart, 'minute');
        const to = end.isAfter(dayEnd) ? DAY_MINUTES : Math.min(end.diff(dayStart, 'minute'), DAY_MINUTES);
        segments.push({
            id: String(span.key),
            row: String(span.row),
            label: String(span.label ?? ''),
            color: span.color,
            start: from,
            end: Math.max(to, from + 1),
            continuesBefore: start.isBefore(dayStart),
            continuesAfter: end.isAfter(dayEnd),
            range: dayRange(start, end),
        });
    }
    return { segments, invalid };
}

/**
 * Lanes for the parts of one row: each part takes the first lane whose last part has ended by its start (touching
 * parts share a lane), earlier starts first and longer parts first among equal starts; so overlapping parts never
 * share a lane and each is drawn whole. Answers each part's lane, in the parts' order, and the number of lanes.
 */
export function layoutLanes(parts: Array<{ start: number; end: number }>): { lanes: number[]; count: number } {
    const order = parts
        .map((part, index) => ({ ...part, index }))
        .sort((a, b) => a.start - b.start || b.end - a.end || a.index - b.index);
    const laneEnds: number[] = [];
    const lanes = new Array<number>(parts.length);
    for (const part of order) {
        let lane = laneEnds.findIndex((laneEnd) => laneEnd <= part.start);
        if (lane === -1) lane = laneEnds.length;
        laneEnds[lane] = part.end;
        lanes[part.index] = lane;
    }
    return { lanes, count: Math.max(1, laneEnds.length) };
}

/** Ten colours white text reads on, distinct side by side (MUI's 700 shades). */
export const PALETTE = [
    '#1976d2',
    '#2e7d32',
    '#ed6c02',
    '#7b1fa2',
    '#c62828',
    '#00838f',
    '#5d4037',
    '#ad1457',
    '#455a64',
    '#827717',
];

/** FNV-1a of the label: the palette slot it prefers, the same on every screen. */
function hashOf(label: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < label.length; i += 1) {
        hash ^= label.charCodeAt(i);
        hash = Math.imul(hash, 0x01000193);
    }
    return hash >>> 0;
}

/**
 * A colour per label: `given` first, else the palette slot the label's hash names, moved to the next free slot when
 * another label of this grid took it (labels taken in sorted order, so the answer depends on the set of labels only,
 * never on the spans' order). With more labels than colours, slots are shared.
 */
export function labelColors(labels: string[], given: Record<string, string> = {}): Record<string, string> {
    const colors: Record<string, string> = {};
    const taken = new Set<number>();
    for (const label of [...new Set(labels)].sort()) {
        if (given[label]) {
            colors[label] = given[label];
            continue;
        }
        let slot = hashOf(label) % PALETTE.length;
        for (let tries = 0; taken.has(slot) && tries < PALETTE.length; tries += 1) slot = (slot + 1) % PALETTE.length;
        taken.add(slot);
        colors[label] = PALETTE[slot];
    }
    return colors;
}

/** Black or white, whichever reads better on a '#rrggbb' colour (white on anything else). */
export function textOn(color: string): string {
    const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
    if (!match) return '#fff';
    const [r, g, b] = match.slice(1).map((h) => parseInt(h, 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? 'rgba(0, 0, 0, 0.87)' : '#fff';
}
