import { useCallback, useContext } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { DataProviderContext, useDataProvider } from 'react-admin';
import { normaliseStatus } from '../../../schemas/device';
import type { PlatformDataProvider } from '../../engine/choices';
import type { DeviceDetail, DeviceDetailAnswer } from './types';

/** The resource the detail calls are declared on (resources/deviceDetail.tsx). */
export const DETAIL = 'deviceDetail';

export const usePlatform = () => useDataProvider<PlatformDataProvider>();

/** Every query of one device starts with this key, so a write can refresh them all. */
export const deviceKey = (deviceId: number | string) => [DETAIL, 'device', String(deviceId)];

const normalise = (answer: DeviceDetailAnswer): DeviceDetailAnswer => ({
    product: answer.product,
    device: { ...answer.device, status: normaliseStatus(answer.device.status) },
});

export interface DeviceQuery {
    data: DeviceDetailAnswer | undefined;
    isPending: boolean;
    error: Error | null;
    /** Fetches the device again (after an edit, a status refresh). */
    reload: () => void;
}

const positiveId = (raw: string | null | undefined): number | null =>
    raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;

/** /devInstanceDetail and /childDeviceDetail: the device by its id. */
export function useDeviceById(rawDeviceId: string | undefined): DeviceQuery & { invalidId: boolean } {
    const dataProvider = usePlatform();
    const deviceId = positiveId(rawDeviceId);
    const query = useQuery({
        queryKey: [...deviceKey(deviceId ?? 0), 'detail'],
        queryFn: async () =>
            normalise((await dataProvider.invoke<DeviceDetailAnswer>(DETAIL, 'detail', { deviceId })).data),
        enabled: deviceId !== null,
        retry: false,
    });
    const { refetch } = query;
    return {
        data: query.data,
        isPending: query.isPending && deviceId !== null,
        error: query.error,
        reload: useCallback(() => void refetch(), [refetch]),
        invalidId: deviceId === null,
    };
}

/**
 * /devices/{productKey}/{deviceName}?devicesId=: the path names the device. devicesId saves a call when it is the
 * same device; otherwise (absent, stale) the device is looked up by name first.
 */
export function useDeviceByName(productKey: string, deviceName: string, devicesId: string | null): DeviceQuery {
    const dataProvider = usePlatform();
    const hinted = positiveId(devicesId);
    const query = useQuery({
        queryKey: [DETAIL, 'byName', productKey, deviceName, hinted],
        queryFn: async () => {
            const byId = async (deviceId: number) =>
                normalise((await dataProvider.invoke<DeviceDetailAnswer>(DETAIL, 'detail', { deviceId })).data);
            if (hinted !== null) {
                const answer = await byId(hinted).catch(() => null);
                if (answer && answer.device.productKey === productKey && answer.device.deviceName === deviceName) {
                    return answer;
                }
            }
            const { data } = await dataProvider.invoke<DeviceDetail>(DETAIL, 'getInfo', { productKey, deviceName });
            return byId(data.deviceId);
        },
        retry: false,
    });
    const { refetch } = query;
    return {
        data: query.data,
        isPending: query.isPending,
        error: query.error,
        reload: useCallback(() => void refetch(), [refetch]),
    };
}

/** Refetches every query about devices after a write (the lists behind the detail too). */
export function useRefreshDeviceLists() {
    const queryClient = useQueryClient();
    return useCallback(() => queryClient.invalidateQueries({ queryKey: ['devices'] }), [queryClient]);
}

/**
 * The URL of a GET call the browser follows itself (downloads). It is built on the provider itself: the proxy
 * useDataProvider() hands out turns every method into a promise.
 */
export function useCallUrl() {
    const raw = useContext(DataProviderContext) as PlatformDataProvider | null;
    return useCallback(
        (call: string, params: Record<string, unknown> = {}) => raw?.url(DETAIL, call, params) ?? '#',
        [raw],
    );
}

export function errorText(error: unknown, fallback = '系统错误'): string {
    return (error instanceof Error && error.message) || fallback;
}

/** A 404 or a 'not found' message: the device does not exist (any more). */
export function isNotFound(error: unknown): boolean {
    const status = (error as { status?: number } | null)?.status;
    return status === 404 || /不存在/.test(errorText(error, ''));
}
