import type { ComponentType, ReactNode } from 'react';
import type { AnyObjectSchema } from 'yup';
import type { ApiMapping } from '../../dataProvider/types';

export type ViewName = 'list' | 'show' | 'edit' | 'create';

/** A field's type decides both its display component and its default input, in one switch (see engine/fields.tsx). */
export type FieldType =
    | 'text'
    | 'longText'
    | 'number'
    | 'datetime'
    | 'date'
    | 'boolean'
    | 'select'
    | 'reference'
    | 'cascader'
    | 'status'
    | 'link'
    | 'password';

export type InputKind = 'text' | 'textarea' | 'number' | 'select' | 'radio' | 'reference' | 'cascader' | 'none';

export interface Choice {
    id: string | number;
    name: string;
    /** MUI palette colour for status chips. */
    color?: 'default' | 'primary' | 'secondary' | 'success' | 'error' | 'info' | 'warning';
}

export interface FieldDefinition {
    label: string;
    type?: FieldType;
    /** Views that show this field. Defaults: every view except create/edit when readOnly. */
    views?: ViewName[];
    /** Input kind on create / edit; defaults from the type. 'none' keeps the field out of forms. */
    input?: InputKind;
    readOnly?: boolean;
    /** dayjs format for datetime / date fields. */
    format?: string;
    choices?: Choice[];
    /** Resource name this field references (input kind 'reference'). */
    reference?: string;
    optionValue?: string;
    optionText?: string;
    /** Marks the input as required (the schema decides validity; this only draws the asterisk). */
    required?: boolean;
    /** Default value on create. */
    defaultValue?: unknown;
    /** Input max length (the browser stops typing past it). */
    maxLength?: number;
    /** Placeholder / helper text shown under the input. */
    helperText?: string;
    sortable?: boolean;
    /** Custom rendering in list and show. */
    render?: (record: Record<string, unknown>) => ReactNode;
    /** For type 'link': where the value links to, from the record. */
    linkTo?: (record: Record<string, unknown>) => string;
}

export interface RowAction {
    label: string;
    /** A route built from the record. */
    to?: (record: Record<string, unknown>) => string;
    /** Shown only when this returns true. */
    when?: (record: Record<string, unknown>) => boolean;
}

export interface ListOptions {
    perPage: number;
    perPageOptions: number[];
    /** Fields offered as filters; the first 'text' filter is the search box. */
    filters?: Array<{ source: string; label: string; input?: InputKind; alwaysOn?: boolean; choices?: Choice[] }>;
    rowActions?: RowAction[];
    /** Show / edit / delete buttons on each row. Defaults: show and delete when the views exist. */
    show?: boolean;
    edit?: boolean;
    /** Delete button on each row with this confirmation text; false hides delete. */
    deleteConfirm?: string | false;
    deleteConfirmTitle?: string;
    bulkDelete?: boolean;
    /** Create opens in a dialog over the list instead of its own page. */
    createInDialog?: boolean;
    sort?: { field: string; order: 'ASC' | 'DESC' };
    /** Text shown when the list is empty. */
    empty?: string;
}

export interface Messages {
    created?: string;
    updated?: string;
    deleted?: string;
    /** Shown when the server answers a failure without a message of its own. */
    createFailed?: string;
    updateFailed?: string;
    deleteFailed?: string;
}

export interface ResourceDefinition {
    name: string;
    label: string;
    icon?: ComponentType;
    /** The route path as SPEC.md names it, without the leading slash (defaults to name). */
    path?: string;
    /** Further routes (e.g. '/productDetail') rendered by this resource's custom views. */
    routes?: Array<{ path: string; element: ComponentType }>;
    /** Field holding the record id in the platform's rows (default 'id'). */
    idField?: string;
    fields: Record<string, FieldDefinition>;
    list?: ListOptions;
    /** yup schema for create / edit (the server validates with the same one). */
    schema?: AnyObjectSchema;
    /** Schema for edit when it differs from create. */
    editSchema?: AnyObjectSchema;
    api?: ApiMapping;
    messages?: Messages;
    /** Replace any generated view; false removes the view. */
    views?: Partial<Record<ViewName, ComponentType | false>>;
    /** How a record is named in titles and references. */
    recordRepresentation?: string | ((record: Record<string, unknown>) => string);
    /** Hidden from the menu (reached through links only). */
    hidden?: boolean;
}

export function defineResource(definition: ResourceDefinition): ResourceDefinition {
    return definition;
}
