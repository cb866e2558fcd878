import type { FieldDefinition } from '../types';

/** Which form the input sits in: the generated create / edit, or a form action's `mode`. */
export type FormMode = 'create' | 'edit';

/** The field as this form sees it: its `perView[mode]` laid over it (locked in edit, another maxLength, ...). */
export function fieldForMode(field: FieldDefinition, mode: FormMode | undefined): FieldDefinition {
    const own = mode ? field.perView?.[mode] : undefined;
    return own ? { ...field, ...own } : field;
}

const FILTERS = {
    // Printable ASCII only: device names and keys travel in MQTT usernames and topics.
    ascii: (value: string) => value.replace(/[^\x20-\x7E]/g, ''),
    digits: (value: string) => value.replace(/\D/g, ''),
};

/** The function behind `inputFilter`, or undefined when the field filters nothing. */
export function inputFilterOf(field: FieldDefinition): ((value: string) => string) | undefined {
    const filter = field.inputFilter;
    if (!filter) return undefined;
    return typeof filter === 'function' ? filter : FILTERS[filter];
}

/**
 * react-admin's parse for a filtered text input: the typed text minus the refused characters, stored at once, so
 * they vanish from the box as they are typed. '' becomes null like react-admin's own default parse.
 */
export function filteringParse(filter: (value: string) => string) {
    return (value: string) => {
        const kept = filter(value ?? '');
        return kept === '' ? null : kept;
    };
}

/** Rows of a call's answer: the array itself, or the list a paged envelope carries. */
export function rowsOf(answer: unknown): Array<Record<string, unknown>> {
    if (Array.isArray(answer)) return answer as Array<Record<string, unknown>>;
    if (answer && typeof answer === 'object') {
        for (const key of ['list', 'records', 'rows', 'data']) {
            const inner = (answer as Record<string, unknown>)[key];
            if (Array.isArray(inner)) return inner as Array<Record<string, unknown>>;
        }
    }
    return [];
}

/** The text of a server failure, in the platform's words when it sent any. */
export function failureText(error: unknown, fallback = '查询失败'): string {
    return (error instanceof Error && error.message) || fallback;
}

/** What the engine's form hands every input it renders (src/engine/inputs.tsx). */
export interface EngineInputProps {
    source: string;
    label: string;
    field: FieldDefinition;
    isRequired?: boolean;
    helperText?: string;
    disabled?: boolean;
    /** Runs after a person's choice (the field's `resets`). */
    onChange?: () => void;
}
