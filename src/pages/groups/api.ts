import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useDataProvider, useNotify } from 'react-admin';
import type { PlatformDataProvider } from '../../engine/choices';

/** The resource as the data provider knows it (resources/groups.tsx). */
export const GROUPS = 'groups';

export interface GroupRow {
    id: number | string;
    groupId: number;
    groupName: string;
    parentId: number;
    level: number;
    projectCode: string;
    projectName: string | null;
    remark: string | null;
    createTime: string | null;
}

export interface GroupDetail extends GroupRow {
    hierarchy: string[];
    deviceTotal: number;
    deviceOnline: number;
    childCount: number;
}

export interface TreeNode {
    groupId: number;
    groupName: string;
    level: number;
    parentId: number;
    isLeaf: boolean;
}

export interface GroupDevice {
    deviceId: number;
    deviceName: string;
    productName: string;
    productKey: string;
    status: string;
    remark: string | null;
    createTime: string | null;
    lastTime: string | null;
}

export interface ProjectOption {
    id: number;
    code: string;
    projectName: string;
}

export interface ProductOption {
    productId: number;
    productKey: string;
    productName: string;
}

export const usePlatform = () => useDataProvider<PlatformDataProvider>();

export function errorText(error: unknown, fallback = '系统错误'): string {
    return (error instanceof Error && error.message) || fallback;
}

/** Toasts with a fixed text (react-admin would otherwise try to translate it). */
export function useToast() {
    const notify = useNotify();
    return useCallback(
        (text: string, type: 'success' | 'error' | 'warning' | 'info' = 'success') =>
            notify(text, { type, messageArgs: { _: text } }),
        [notify],
    );
}

/** After a write: every group query (lists, trees, details, device pages) is fetched again. */
export function useRefreshGroups() {
    const queryClient = useQueryClient();
    return useCallback(() => queryClient.invalidateQueries({ queryKey: [GROUPS] }), [queryClient]);
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const STATUS_TEXT: Record<string, string> = {
    ONLINE: '在线',
    OFFLINE: '离线',
    INACTIVE: '未激活',
    DISABLE: '已禁用',
};
