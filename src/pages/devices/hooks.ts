import { useCallback, useContext } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { DataProviderContext, useDataProvider } from 'react-admin';
import type { PlatformDataProvider } from '../../engine/choices';

/** The resource as react-admin and the data provider know it (resources/devices.tsx). */
export const DEVICES = 'devices';

export interface ProductOption {
    productId: number;
    productKey: string;
    productName: string;
    nodeType: number;
}

export interface DeviceRow {
    id: number | string;
    deviceId: number | string;
    deviceName: string;
    productId: number;
    productKey: string;
    productName: string;
    nodeType?: number;
    status: string;
    projectId?: number | string | null;
    projectName?: string | null;
    [key: string]: unknown;
}

export interface DeviceStatistics {
    total: number;
    onlineTotal: number;
    inActiveTotal: number;
}

export const usePlatform = () => useDataProvider<PlatformDataProvider>();

/** Every product, for the product filter and the dialogs' product choice (GET /api/product/list-product). */
export function useProducts() {
    const dataProvider = usePlatform();
    return useQuery({
        queryKey: ['products', 'listAll'],
        queryFn: async () => (await dataProvider.invoke<ProductOption[]>('products', 'listAll')).data ?? [],
        staleTime: 30_000,
    });
}

/** Total, online and inactive devices of one product, or of all (GET /api/device/statistics). */
export function useDeviceStatistics(productKey: string | undefined, enabled = true) {
    const dataProvider = usePlatform();
    return useQuery({
        queryKey: [DEVICES, 'statistics', productKey ?? ''],
        queryFn: async () =>
            (await dataProvider.invoke<DeviceStatistics>(DEVICES, 'statistics', productKey ? { productKey } : {})).data,
        enabled,
    });
}

/** After a write: the lists and the counts of devices are fetched again. */
export function useRefreshDevices() {
    const queryClient = useQueryClient();
    return useCallback(() => queryClient.invalidateQueries({ queryKey: [DEVICES] }), [queryClient]);
}

/** Counts only (a delete that stepped back a page already leaves the list to its own refetch). */
export function useRefreshStatistics() {
    const queryClient = useQueryClient();
    return useCallback(() => queryClient.invalidateQueries({ queryKey: [DEVICES, 'statistics'] }), [queryClient]);
}

/**
 * The URL of a GET call the browser follows itself (export, template). It is built on the provider itself: the
 * proxy useDataProvider() hands out turns every method into a promise.
 */
export function useCallUrl() {
    const raw = useContext(DataProviderContext) as PlatformDataProvider | null;
    return useCallback(
        (call: string, params: Record<string, unknown> = {}) => raw?.url(DEVICES, call, params) ?? '#',
        [raw],
    );
}

export function errorText(error: unknown, fallback = '系统错误'): string {
    return (error instanceof Error && error.message) || fallback;
}
