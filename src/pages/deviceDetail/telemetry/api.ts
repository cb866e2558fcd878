import { useCallback } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import type { PlatformDataProvider } from '../../../engine/choices';

/** The resource whose custom calls these tabs make (resources/deviceTelemetry.tsx). */
export const TELEMETRY = 'deviceTelemetry';

/** SPEC.md: run status fetches 10 entries; property history pages 10/20/50; device detail events 50 a page. */
export const RUN_STATUS_SIZE = 10;
export const HISTORY_PAGE_SIZES = [10, 20, 50];
export const EVENTS_PAGE_SIZE = 50;
/** SPEC.md "The error catalogue": run status when the answer's code is not 0. */
export const NO_PROPERTY_DATA = '未上报属性数据';

export const METHOD_PROPERTY_POST = 'thing.event.property.post';
export const METHOD_EVENTS = 'thing.event.*';
export const METHOD_SERVICES = 'thing.service.*';

export interface PropertyRow {
    functionId: number;
    functionName: string;
    identifier: string;
    dataTypeName: string;
    unit?: string | null;
    timestamp: string | null;
    value: unknown;
    desired?: unknown;
}

export interface HistoryPoint {
    timestamp: string;
    value: unknown;
}

export interface HistoryPage {
    list: HistoryPoint[];
    total: number;
}

/** One message a device reported (ListProperty and events answers). */
export interface MessageRecord {
    id: number | string;
    time: string;
    method: string;
    identifier?: string | null;
    data: unknown;
}

export interface EventsPage {
    resultList: MessageRecord[];
    currentPage: number;
    totalCount: number;
    totalPage: number;
}

export interface ServiceFunction {
    id: number;
    name: string;
    identifier: string;
    callType?: 'sync' | 'async';
    description?: string | null;
}

export interface SubDeviceRow {
    deviceId: number;
    subDeviceId?: number;
    deviceName: string;
    productId: number;
    productName: string;
    productKey: string;
    nodeType?: number;
    status: string;
    createTime: string | null;
    remark?: string | null;
}

export interface Paged<T> {
    records: T[];
    total: number;
}

export const usePlatform = () => useDataProvider<PlatformDataProvider>();

export function errorText(error: unknown, fallback = '查询失败'): string {
    return (error instanceof Error && error.message) || fallback;
}

/** Toasts that show the text as given (messageArgs `_` keeps react-admin from treating it as a translation key). */
export function useToast() {
    const notify = useNotify();
    return useCallback(
        (text: string, type: 'success' | 'error' | 'warning' | 'info' = 'info') =>
            notify(text, { type, messageArgs: { _: text } }),
        [notify],
    );
}

/**
 * A reported value or message payload as plain text: strings as they are, anything else as JSON. React renders
 * the result as text, so a value holding markup shows the markup's characters.
 */
export function asText(value: unknown, pretty = false): string {
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    try {
        return JSON.stringify(value, null, pretty ? 2 : undefined);
    } catch {
        return String(value);
    }
}

/** Integer and floating point properties are charted; the other types (text, enum, bool, struct ...) are tabled. */
export function isNumericType(dataTypeName: string | null | undefined): boolean {
    return /整数|浮点|^int|^float|^double/i.test(dataTypeName ?? '');
}

export function toNumber(value: unknown): number | null {
    if (value === null || value === undefined || value === '') return null;
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? n : null;
}
