import { useCallback } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { useDataProvider, useNotify } from 'react-admin';
import { ALERT_LEVELS as LEVEL_NAMES } from '../../../schemas/project';
import type { PlatformDataProvider } from '../../engine/choices';

/** The definition's name (resources/projects.tsx): custom calls go through it. */
export const PROJECTS = 'projects';
/** The resource as react-admin knows it (its route): list queries are cached under it. */
export const PROGRAM_LIST = 'programList';

export interface ProjectRow {
    id: number;
    name: string;
    projectName?: string;
    code: string;
    classId: number;
    sceneName: string;
    remark?: string | null;
    createTime: string;
    productCount?: number;
    deviceCount?: number;
    onlineCount?: number;
    /** Only in the answer of get. */
    offlineCount?: number;
    inactiveCount?: number;
    warn?: number;
    opTime?: string;
    [key: string]: unknown;
}

export interface Scene {
    id: number;
    name: string;
    projectCount?: number;
}

export interface StaffRow {
    id: number;
    userId: number;
    username: string;
    loginName: string;
    mobile?: string | null;
}

export interface UserOption {
    userId: number;
    username: string;
    loginName: string;
    mobile?: string | null;
}

export interface AlertRow {
    id: number;
    type: number;
    status: number;
    timestamp: string;
    params?: string | null;
    deviceName: string;
    productKey?: string;
}

export interface ProjectDeviceRow {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    productName: string;
    status: string;
    remark?: string | null;
    createTime: string;
    projectId?: number | null;
}

export interface Page<T> {
    records: T[];
    total: number;
}

export const usePlatform = () => useDataProvider<PlatformDataProvider>();

export function errorText(error: unknown, fallback = '系统错误'): string {
    return (error instanceof Error && error.message) || fallback;
}

/** Toasts that show the given text as it is (react-admin would otherwise try to translate it). */
export function useToast() {
    const notify = useNotify();
    return useCallback(
        (text: string, type: 'success' | 'error' | 'warning' | 'info' = 'success') =>
            notify(text, { type, messageArgs: { _: text } }),
        [notify],
    );
}

/** Every scene with how many projects use it (GET /api/project/sceneList). */
export function useScenes() {
    const platform = usePlatform();
    return useQuery({
        queryKey: [PROJECTS, 'scenes'],
        queryFn: async () => (await platform.invoke<Scene[]>(PROJECTS, 'scenes')).data ?? [],
        staleTime: 30_000,
    });
}

/**
 * After a project or scene changes: the project list, the scene list (counts), the pickers elsewhere (the devices
 * screen's bind dialog caches ['projects', 'listAll']), the forms' scene choices and the open overview.
 */
export function useRefreshProjects() {
    const queryClient = useQueryClient();
    return useCallback(
        () =>
            Promise.all([
                queryClient.invalidateQueries({ queryKey: [PROGRAM_LIST] }),
                queryClient.invalidateQueries({ queryKey: [PROJECTS] }),
                queryClient.invalidateQueries({ queryKey: ['engine-choices', PROJECTS] }),
                // Devices carry their project's name.
                queryClient.invalidateQueries({ queryKey: ['devices'] }),
            ]),
        [queryClient],
    );
}

/** Trim the last 4 characters of an alert time ('…:ss.SSS' → '…:ss'), as SPEC.md §9 says. */
export function alertTime(timestamp: string | null | undefined): string {
    if (!timestamp) return '';
    return timestamp.length > 4 ? timestamp.slice(0, -4) : timestamp;
}

/** Alert levels (schemas/project.ts) with the colour each is drawn in. */
export const ALERT_LEVELS: Record<number, { name: string; color: string }> = {
    1: { name: LEVEL_NAMES[1], color: '#d32f2f' },
    2: { name: LEVEL_NAMES[2], color: '#ed6c02' },
    3: { name: LEVEL_NAMES[3], color: '#0288d1' },
};

/**
 * State kept in the query string beside the screen's other params, so the overview's lists and chart range can be
 * bookmarked: `number(name, fallback)` reads a positive integer, `text(name)` a string, and `update` sets several
 * at once (one navigation; a value equal to its fallback, empty or null removes the param).
 */
export function useQueryState() {
    const [search, setSearch] = useSearchParams();
    const number = (name: string, fallback: number) => {
        const n = Number(search.get(name));
        return Number.isInteger(n) && n > 0 ? n : fallback;
    };
    const text = (name: string) => search.get(name) ?? '';
    const update = useCallback(
        (changes: Record<string, string | number | null | undefined>) =>
            setSearch(
                (current) => {
                    const params = new URLSearchParams(current);
                    for (const [key, value] of Object.entries(changes)) {
                        if (value === null || value === undefined || value === '') params.delete(key);
                        else params.set(key, String(value));
                    }
                    return params;
                },
                { replace: true },
            ),
        [setSearch],
    );
    return { number, text, update };
}
