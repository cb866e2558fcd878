import { useQuery } from '@tanstack/react-query';
import { useDataProvider } from 'react-admin';
import type { PlatformDataProvider } from '../../engine/choices';

/** The resource whose custom calls the dashboard makes (resources/dashboard.ts). */
export const DASHBOARD = 'dashboard';

/** SPEC.md §9: the dashboard alert table is paged at 10. */
export const ALERT_PAGE_SIZE = 10;
/** How many project cards 我的项目 shows before 查看全部. */
export const PROJECT_CARDS = 7;

export interface DashboardCounts {
    projectCount: number;
    productCount: number;
    deviceCount: number;
    appUsedCount: number;
    appToUseCount: number;
}

export interface DeviceTotals {
    onlineTotal: number;
    offlineTotal: number;
    inActiveTotal: number;
}

export interface CategoryCount {
    categoryId: number | string;
    categoryName: string;
    total: number;
}

export interface LevelCount {
    type: number | string;
    amount: number;
}

export interface AlertEvent {
    id: number | string;
    type: number | string;
    status: number | string;
    timestamp: string;
    params?: string | null;
    deviceName: string;
    productKey?: string | null;
    projectId?: number | string | null;
    projectName?: string | null;
}

export interface Page<T> {
    records: T[];
    total: number;
}

export interface ProjectCard {
    id: number | string;
    name?: string;
    projectName?: string;
    sceneName?: string | null;
    deviceCount?: number;
    onlineCount?: number;
}

export interface DeviceLocation {
    deviceId: number | string;
    productId: number | string;
    deviceName: string;
    longitude: number | null;
    latitude: number | null;
    status?: string;
}

/**
 * Up to this many located devices travel whole in the map's first answer and are clustered in the browser (about
 * 1 MB, no refetch on pans); beyond, the server clusters each view.
 */
export const WHOLE_MAP_LIMIT = 10_000;

type Call = 'projects';

const key = (call: Call, params: Record<string, unknown> = {}) => [DASHBOARD, call, params] as const;

function options<T>(dataProvider: PlatformDataProvider, call: Call, params: Record<string, unknown> = {}) {
    return {
        queryKey: key(call, params),
        queryFn: async ({ signal }: { signal: AbortSignal }) =>
            (await dataProvider.invoke<T>(DASHBOARD, call, params, { signal })).data,
        // A refusal answers the same when asked again; a network fault may not.
        retry: (count: number, error: Error & { status?: number }) =>
            count < 2 && !(error?.status !== undefined && error.status >= 400 && error.status < 500),
        staleTime: 30_000,
    };
}

const usePlatform = () => useDataProvider<PlatformDataProvider>();

export const projectParams = { page: 1, size: PROJECT_CARDS };

export const useProjects = () => useQuery(options<Page<ProjectCard>>(usePlatform(), 'projects', projectParams));

/** The message of a failed call, for the section's error line. */
export const errorText = (error: unknown) => (error instanceof Error && error.message) || '加载失败';
