import { useCallback } from 'react';
import { useNotify } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useOptionalDefinition } from '../context';
import { useRefresh } from '../calls';
import type { FieldDefinition, ResourceDefinition } from '../types';
import type { Of, Refresh, Scope } from '../vocabulary';

/** A value of the vocabulary that may be a function of the scope. */
export function of<T>(value: Of<T>, scope: Scope): T {
    return typeof value === 'function' ? (value as (scope: Scope) => T)(scope) : value;
}

const said = (body: unknown, path: string[]) => {
    let at: unknown = body;
    for (const key of path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
    return typeof at === 'string' && at.trim() !== '';
};

/**
 * The server's own words when it sent any (HttpError.message), else the action's `failure`, else 操作失败. An
 * envelope without a message carries only the provider's generic text, which the action's own words replace;
 * network failures and timeouts keep theirs.
 */
export function failureText(error: unknown, fallback?: string): string {
    const message = error instanceof Error ? error.message : '';
    const body = (error as { body?: unknown } | undefined)?.body;
    const envelope = !!body && typeof body === 'object';
    const own = ['msg', 'returnMessage', 'data.msg'].some((p) => said(body, p.split('.')));
    if (message && (own || !envelope)) return message;
    return fallback || message || '操作失败';
}

export function successText(
    success: string | ((answer: unknown, scope: Scope) => string) | undefined,
    answer: unknown,
    scope: Scope,
): string {
    return (typeof success === 'function' ? success(answer, scope) : success) || '操作成功';
}

/** Toasts with literal text: messageArgs._ keeps the i18n provider from looking the Chinese up as a key. */
export function useToast() {
    const notify = useNotify();
    return useCallback(
        (text: string, type: 'success' | 'error' | 'info' | 'warning' = 'success') =>
            notify(text, { type, messageArgs: { _: text } }),
        [notify],
    );
}

/** The resource whose calls an action runs by default: the one given, else the definition on screen. */
export function useActionResource(resource: string | undefined): string | undefined {
    const definition = useOptionalDefinition();
    return resource ?? definition?.name;
}

/** What every action does after its call succeeded: the success toast, the reload, then the optional route. */
export function useAfterSuccess(resource: string | undefined) {
    const toast = useToast();
    const refresh = useRefresh();
    const navigate = useNavigate();
    return useCallback(
        async (
            action: {
                success?: string | ((answer: unknown, scope: Scope) => string);
                refresh?: Refresh;
                then?: (answer: unknown, scope: Scope) => string | undefined;
                callResource?: string;
            },
            answer: unknown,
            scope: Scope,
        ) => {
            toast(successText(action.success, answer, scope));
            // Not awaited: the dialog closes at once while the lists reload behind it.
            void refresh(action.refresh, action.callResource ?? resource);
            const to = action.then?.(answer, scope);
            if (to) navigate(to);
        },
        [toast, refresh, navigate, resource],
    );
}

/** The inputs of a form: a field of the definition by name, or a pair bringing its own definition. */
export function resolveInputs(
    fields: Array<string | [string, FieldDefinition]>,
    definition: ResourceDefinition | undefined,
): Array<[string, FieldDefinition]> {
    return fields.map((f): [string, FieldDefinition] => {
        if (typeof f !== 'string') return f;
        const field = definition?.fields[f];
        if (!field) throw new Error(`表单字段 ${f} 未在资源定义中声明`);
        return [f, field];
    });
}

/** Row buttons are compact and never wrap their label; toolbar buttons keep their own size. */
export const ROW_SX = { minWidth: 0, px: 0.75, whiteSpace: 'nowrap' } as const;
