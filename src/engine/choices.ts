import { useQuery } from '@tanstack/react-query';
import { useDataProvider, type DataProvider } from 'react-admin';
import type { PlatformDataProviderMethods } from '../../dataProvider/types';
import { useOptionalDefinition } from './context';
import type { ChoicesSource, Choice, FieldDefinition, FormValues } from './types';

export type PlatformDataProvider = DataProvider & PlatformDataProviderMethods;

function toChoices(rows: unknown, source: ChoicesSource): Choice[] {
    if (!Array.isArray(rows)) return [];
    const value = source.optionValue ?? 'id';
    const text = source.optionText ?? 'name';
    const children = source.childrenField ?? 'children';
    return rows.map((row: Record<string, unknown>) => {
        const nested = row[children];
        return {
            id: row[value] as Choice['id'],
            name: source.optionLabel ? source.optionLabel(row) : String(row[text] ?? row[value] ?? ''),
            ...(Array.isArray(nested) && nested.length > 0 ? { children: toChoices(nested, source) } : {}),
        };
    });
}

export interface FieldChoices {
    choices: Choice[] | undefined;
    isPending: boolean;
    error: Error | null;
    /** Identifies the params the choices were loaded with; it changes when they are reloaded. */
    key: string;
}

/**
 * A field's choices: the static `choices`, or the rows of `choicesFrom`'s custom call with params taken from the
 * form values. react-query caches them per params, so going back to earlier params shows them at once.
 */
export function useFieldChoices(field: FieldDefinition, values: FormValues | undefined): FieldChoices {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const definition = useOptionalDefinition();
    const source = field.choicesFrom;
    const resource = source?.resource ?? definition?.name ?? '';
    const params = source?.params ? source.params(values ?? {}) : {};
    const key = JSON.stringify(params);
    const query = useQuery({
        queryKey: ['engine-choices', resource, source?.call, key],
        queryFn: async () => toChoices((await dataProvider.invoke(resource, source!.call, params)).data, source!),
        enabled: !!source && !source.keep,
        staleTime: 60_000,
    });
    // `keep` filters the call's rows by the form values in the browser: the rows are cached, the choices follow.
    const rows = useQuery({
        queryKey: ['engine-choices', resource, source?.call, key, 'rows'],
        queryFn: async () => (await dataProvider.invoke(resource, source!.call, params)).data,
        enabled: !!source?.keep,
        staleTime: 60_000,
    });
    if (!source) return { choices: field.choices, isPending: false, error: null, key: '' };
    if (source.keep) {
        const list = Array.isArray(rows.data) ? (rows.data as Array<Record<string, unknown>>) : undefined;
        const kept = list?.filter((row) => source.keep!(row, values ?? {}));
        return {
            choices: kept ? toChoices(kept, source) : undefined,
            isPending: rows.isPending,
            error: rows.error,
            key: `${key}:${kept?.length ?? ''}`,
        };
    }
    return { choices: query.data, isPending: query.isPending, error: query.error, key };
}

/** The path of ids from a root to the node whose id is `value` (empty when absent). */
export function pathTo(tree: Choice[] | undefined, value: unknown): Array<Choice['id']> {
    for (const node of tree ?? []) {
        if (String(node.id) === String(value)) return [node.id];
        const below = pathTo(node.children, value);
        if (below.length > 0) return [node.id, ...below];
    }
    return [];
}
