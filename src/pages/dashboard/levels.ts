import type { PieSlice } from '../../components/charts/CountPie';
import type { CategoryCount, DeviceTotals, LevelCount } from './api';

/** The device states of the status pie (a disabled device counts as offline: docs/platform-api.md "Devices"). */
export const STATUS_SLICES: Array<{ id: string; label: string; key: keyof DeviceTotals; color: string }> = [
    { id: 'ONLINE', label: '在线', key: 'onlineTotal', color: '#2fb344' },
    { id: 'OFFLINE', label: '离线', key: 'offlineTotal', color: '#8c96a3' },
    { id: 'INACTIVE', label: '未激活', key: 'inActiveTotal', color: '#4e9bf5' },
];

/** SPEC.md §9: alert levels 1 urgent, 2 severe, 3 general. */
export const ALERT_LEVELS: Array<{ type: number; label: string; color: string }> = [
    { type: 1, label: '紧急', color: '#e8684a' },
    { type: 2, label: '严重', color: '#f0a23b' },
    { type: 3, label: '一般', color: '#4e9bf5' },
];

const CATEGORY_COLORS = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4'];

export const statusSlices = (totals: DeviceTotals): PieSlice[] =>
    STATUS_SLICES.map((s) => ({ id: s.id, label: s.label, value: Number(totals[s.key]) || 0, color: s.color }));

export const categorySlices = (rows: CategoryCount[]): PieSlice[] =>
    rows.map((r, i) => ({
        id: r.categoryId,
        label: r.categoryName,
        value: Number(r.total) || 0,
        color: CATEGORY_COLORS[i % CATEGORY_COLORS.length],
    }));

export const levelSlices = (rows: LevelCount[]): PieSlice[] =>
    ALERT_LEVELS.map((level) => ({
        id: level.type,
        label: level.label,
        value: Number(rows.find((r) => Number(r.type) === level.type)?.amount) || 0,
        color: level.color,
    }));
