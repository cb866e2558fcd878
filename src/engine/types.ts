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

export type InputKind =
    'text' | 'textarea' | 'number' | 'select' | 'radio' | 'reference' | 'cascader' | 'boolean' | 'password' | 'none';

export interface Choice {
    id: string | number;
    name: string;
    /** MUI palette colour for status chips. */
    color?: 'default' | 'primary' | 'secondary' | 'success' | 'error' | 'info' | 'warning';
    /** Nested choices, for the 'cascader' input. */
    children?: Choice[];
}

/** The values of the form being edited, as react-hook-form holds them. */
export type FormValues = Record<string, unknown>;

/**
 * Choices (or a tree of them, for 'cascader') loaded from one of a resource's custom calls. The params come from
 * the form values; when they change the choices are loaded again.
 */
export interface ChoicesSource {
    /** Name of the call in `api.custom`. */
    call: string;
    /** Resource whose custom call it is (default: the resource being edited). */
    resource?: string;
    params?: (values: FormValues) => Record<string, unknown>;
    /** Property of a loaded row holding its value (default 'id') and its text (default 'name'). */
    optionValue?: string;
    optionText?: string;
    /** Property holding a node's children ('cascader'; default 'children'). */
    childrenField?: string;
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

    // Form behaviour, read by the generated Create / Edit (engine/inputs.tsx).
    /** The input is shown only while this holds for the form values (its value is kept while hidden). */
    visibleWhen?: (values: FormValues) => boolean;
    /** The input's label, when it depends on the form values (the column and show label stay `label`). */
    formLabel?: (values: FormValues) => string;
    /** Load the input's choices (select, radio) or tree (cascader) from a custom call. */
    choicesFrom?: ChoicesSource;
    /**
     * When the user changes this field, set other fields: a fixed map, or a function of the new value (answer
     * undefined to leave them alone).
     */
    resets?: FormValues | ((value: unknown, values: FormValues) => FormValues | undefined);
    /** Radio buttons in a row (default) or a column. */
    row?: boolean;
}

export interface RowAction {
    label: string;
    /** Icon shown before the label. */
    icon?: ComponentType;
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
    /**
     * 查看 / 编辑 buttons on each row. Defaults: 查看 when the show view exists and no rowActions are given, 编辑 when
     * the edit view exists. 删除 shows when the api has a delete call, unless deleteConfirm is false.
     */
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
    /** Label of the create button (default '新建'). */
    createLabel?: string;
    /** Title of the create dialog (default: the create button's label). */
    createTitle?: string;
    /** Buttons shown when rows are selected (each gets react-admin's bulk-action context). */
    bulkActions?: ComponentType[];
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
    /** Further routes (e.g. '/productDetail/*') rendered by this resource's custom views, inside the layout. */
    routes?: Array<{ path: string; element: ComponentType; noLayout?: boolean }>;
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
