import { Alert, Box, LinearProgress, Tooltip, Typography } from '@mui/material';
import dayjs from 'dayjs';
import { of } from '../actions/shared';
import { useCall } from '../calls';
import { readAt } from '../list';
import type { DaySpan, Scope, Section, TimeGridSpec, WeekSpan } from '../vocabulary';
import { Block, NoteBody } from './Sections';
import {
    DAY_MINUTES,
    daySegments,
    labelColors,
    layoutLanes,
    textOn,
    weekSegments,
    WEEKDAYS,
    type GridSegment,
    type GridSegments,
} from './timeGridLayout';

type TimeGridSection = Extract<Section, { kind: 'timeGrid' }>;
type GridRow = { id: string; label: string };

const LANE_HEIGHT = 28;
const LABEL_WIDTH = 96;
// An hour is at least 40 px wide: the grid scrolls sideways on a narrow screen rather than squeezing spans.
const HOUR_WIDTH = 40;
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
// One faint line per hour behind the spans.
const HOUR_LINES = {
    backgroundImage: 'linear-gradient(to right, rgba(0, 0, 0, 0.08) 1px, transparent 1px)',
    backgroundSize: `calc(100% / 24) 100%`,
};

type AnySpan = WeekSpan | DaySpan;
type DeclaredRow = { id: string | number; label: string };

/** An array at a dotted path (the whole value for ''), or undefined when there is none. */
function arrayAt<T>(from: unknown, path: string): T[] | undefined {
    const value = path ? readAt(from, path) : from;
    return Array.isArray(value) ? (value as T[]) : undefined;
}

/**
 * The spans: the definition's function (undefined: loading), else a path into the answer (default: the answer itself)
 * or, without a call, into the record (default 'spans').
 */
function spansOf(grid: TimeGridSpec, scope: Scope, answer: unknown): AnySpan[] | undefined {
    if (typeof grid.spans === 'function') return grid.spans(scope, answer);
    const from = grid.source ? answer : scope.record;
    return arrayAt<AnySpan>(from, grid.spans ?? (grid.source ? '' : 'spans')) ?? [];
}

/** The day grid's declared rows: the definition's function, or a path into the answer or record. */
function declaredRows(grid: TimeGridSpec, scope: Scope, answer: unknown): DeclaredRow[] {
    if (typeof grid.rows === 'function') return grid.rows(scope, answer) ?? [];
    if (!grid.rows) return [];
    return arrayAt<DeclaredRow>(grid.source ? answer : scope.record, grid.rows) ?? [];
}

/** The rows: Monday..Sunday, or the declared rows followed by any row a span names that they lack. */
function gridRows(grid: TimeGridSpec, declared: DeclaredRow[], parts: GridSegment[]) {
    if (grid.kind === 'week') return WEEKDAYS.map((label, i) => ({ id: String(i + 1), label }));
    const rows: GridRow[] = declared.map((r) => ({ id: String(r.id), label: String(r.label ?? r.id) }));
    for (const part of parts) if (!rows.some((r) => r.id === part.row)) rows.push({ id: part.row, label: part.row });
    return rows;
}

/** One span's part: placed by its minutes and lane, coloured, its full label and range in the tooltip. */
function SpanBox({ part, lane, color }: { part: GridSegment; lane: number; color: string }) {
    const title = (
        <>
            <Box component="strong" sx={{ display: 'block' }}>
                {part.label}
            </Box>
            {part.range}
        </>
    );
    return (
        <Tooltip title={title} arrow disableInteractive>
            <Box
                role="listitem"
                tabIndex={0}
                aria-label={`${part.label} ${part.range}`}
                data-lane={lane}
                style={{
                    left: `${(part.start / DAY_MINUTES) * 100}%`,
                    width: `${((part.end - part.start) / DAY_MINUTES) * 100}%`,
                    top: lane * LANE_HEIGHT + 2,
                    height: LANE_HEIGHT - 4,
                    backgroundColor: color,
                    color: textOn(color),
                }}
                sx={{
                    position: 'absolute',
                    boxSizing: 'border-box',
                    px: 0.75,
                    fontSize: 12,
                    lineHeight: `${LANE_HEIGHT - 4}px`,
                    whiteSpace: 'nowrap',
                    overflow: 'hidden',
                    textOverflow: 'ellipsis',
                    // A part cut at midnight has a square edge on the side the span goes on.
                    borderRadius: 1,
                    ...(part.continuesBefore ? { borderTopLeftRadius: 0, borderBottomLeftRadius: 0 } : {}),
                    ...(part.continuesAfter ? { borderTopRightRadius: 0, borderBottomRightRadius: 0 } : {}),
                    cursor: 'default',
                    '&:focus-visible': { outline: 2, outlineColor: 'text.primary', outlineOffset: 1 },
                }}
            >
                {part.label}
            </Box>
        </Tooltip>
    );
}

/** A row: its label, and its parts in as many lanes as they overlap. */
function GridRowLine({ row, parts, colors }: { row: GridRow; parts: GridSegment[]; colors: Record<string, string> }) {
    const { lanes, count } = layoutLanes(parts);
    return (
        <Box sx={{ display: 'flex', borderTop: 1, borderColor: 'divider' }}>
            <Typography variant="body2" sx={{ width: LABEL_WIDTH, flexShrink: 0, px: 1, py: 0.5, alignSelf: 'center' }}>
                {row.label}
            </Typography>
            <Box
                role="list"
                aria-label={row.label}
                sx={{ position: 'relative', flex: 1, height: count * LANE_HEIGHT, ...HOUR_LINES }}
            >
                {parts.map((part, i) => (
                    <SpanBox key={part.id} part={part} lane={lanes[i]} color={part.color ?? colors[part.label]} />
                ))}
            </Box>
        </Box>
    );
}

/** The hour header: the corner (the day grid's day) and 00..23. */
function HourHeader({ corner }: { corner?: string }) {
    return (
        <Box sx={{ display: 'flex' }} aria-hidden>
            <Typography variant="caption" color="text.secondary" sx={{ width: LABEL_WIDTH, flexShrink: 0, px: 1 }}>
                {corner}
            </Typography>
            {HOURS.map((hour) => (
                <Typography key={hour} variant="caption" color="text.secondary" sx={{ flex: 1, pl: 0.25 }}>
                    {String(hour).padStart(2, '0')}
                </Typography>
            ))}
        </Box>
    );
}

/** Each label once, with its colour (a span's own colour when it gives one), in order of first appearance. */
function Legend({ parts, colors }: { parts: GridSegment[]; colors: Record<string, string> }) {
    const entries = new Map<string, string>();
    for (const part of parts) if (!entries.has(part.label)) entries.set(part.label, part.color ?? colors[part.label]);
    return (
        <Box
            component="ul"
            aria-label="图例"
            sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, listStyle: 'none', m: 0, p: 0 }}
        >
            {[...entries].map(([label, color]) => (
                <Box component="li" key={label} sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
                    <Box
                        aria-hidden
                        sx={{ width: 12, height: 12, borderRadius: 0.5 }}
                        style={{ backgroundColor: color }}
                    />
                    <Typography variant="body2">{label}</Typography>
                </Box>
            ))}
        </Box>
    );
}

/** The grid itself: the header, a line per row, the legend and a word about spans that could not be read. */
function Grid({ grid, rows, cut, day }: { grid: TimeGridSpec; rows: GridRow[]; cut: GridSegments; day?: string }) {
    const colors = labelColors(
        cut.segments.map((p) => p.label),
        grid.colors,
    );
    return (
        <>
            <Box sx={{ overflowX: 'auto' }}>
                <Box sx={{ minWidth: LABEL_WIDTH + 24 * HOUR_WIDTH, borderBottom: 1, borderColor: 'divider' }}>
                    <HourHeader corner={day} />
                    {rows.map((row) => (
                        <GridRowLine
                            key={row.id}
                            row={row}
                            parts={cut.segments.filter((p) => p.row === row.id)}
                            colors={colors}
                        />
                    ))}
                </Box>
            </Box>
            {grid.legend === false ? null : <Legend parts={cut.segments} colors={colors} />}
            {cut.invalid ? (
                <Typography variant="caption" color="warning.main">
                    {cut.invalid} 个时段的时间无法识别，未显示
                </Typography>
            ) : null}
        </>
    );
}

/** The body: loading, a failure, the empty state, or the grid. */
function GridBody({ section, scope }: { section: TimeGridSection; scope: Scope }) {
    const { grid } = section;
    const answer = useCall<unknown>(grid.source, scope, { enabled: !!grid.source });
    if (grid.source && answer.isPending) return <LinearProgress aria-label={`${section.title ?? '时间表'}加载中`} />;
    if (grid.source && answer.isError)
        return <Alert severity="error">加载失败：{(answer.error as Error)?.message || '查询失败'}</Alert>;
    const spans = spansOf(grid, scope, answer.data);
    if (!spans) return <LinearProgress aria-label={`${section.title ?? '时间表'}加载中`} />;
    const day = grid.kind === 'day' ? (grid.day ? of(grid.day, scope) : dayjs().format('YYYY-MM-DD')) : undefined;
    const cut = day ? daySegments(spans as DaySpan[], day) : weekSegments(spans as WeekSpan[]);
    if (!cut.segments.length && !cut.invalid) {
        return <NoteBody text={grid.empty ? of(grid.empty, scope) : '暂无时段'} />;
    }
    const rows = gridRows(grid, declaredRows(grid, scope, answer.data), cut.segments);
    return <Grid grid={grid} rows={rows} cut={cut} day={day} />;
}

/** `timeGrid`: spans of a week (weekday × hour) or of a day (rows × hour), from the record or a call. */
export default function TimeGridSection({ section, scope }: { section: TimeGridSection; scope: Scope }) {
    return (
        <Block title={section.title} scope={scope}>
            <GridBody section={section} scope={scope} />
        </Block>
    );
}
