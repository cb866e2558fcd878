import { useEffect, useState } from 'react';
import { useDataProvider, useNotify, type DataProvider } from 'react-admin';
import type { PlatformDataProviderMethods } from '../../../dataProvider/types';

export type PlatformDataProvider = DataProvider & PlatformDataProviderMethods;

export const usePlatformDataProvider = () => useDataProvider<PlatformDataProvider>();

export function errorMessage(error: unknown, fallback = '操作失败'): string {
    if (error instanceof Error && error.message) return error.message;
    if (typeof error === 'string' && error) return error;
    return fallback;
}

/**
 * One custom call's answer, fetched when the params change (skipped while `params` is null); failures are
 * shown as an error toast and leave `data` as it was.
 */
export function useInvoke<T>(resource: string, call: string, params: Record<string, unknown> | null, initial: T) {
    const dataProvider = usePlatformDataProvider();
    const notify = useNotify();
    const [state, setState] = useState<{ data: T; isPending: boolean; error: unknown }>({
        data: initial,
        isPending: params !== null,
        error: null,
    });
    const [version, setVersion] = useState(0);
    const key = params === null ? null : JSON.stringify(params);

    useEffect(() => {
        if (key === null) return;
        let live = true;
        setState((s) => ({ ...s, isPending: true }));
        dataProvider
            .invoke<T>(resource, call, JSON.parse(key))
            .then(({ data }) => live && setState({ data, isPending: false, error: null }))
            .catch((error: unknown) => {
                if (!live) return;
                setState((s) => ({ ...s, isPending: false, error }));
                notify(errorMessage(error, '查询失败'), { type: 'error' });
            });
        return () => {
            live = false;
        };
        // dataProvider and notify are stable for the page's life; the call is keyed by its params.
        // eslint-disable-next-line react-hooks/exhaustive-deps
    }, [resource, call, key, version]);

    return { ...state, refetch: () => setVersion((v) => v + 1) };
}
