import type { ComponentType, ReactNode } from 'react';
import type { AnyObjectSchema } from 'yup';
import type { AnyPaths, ApiMapping, ContractPaths } from '../../dataProvider/types';
import type {
    Action,
    CallRef,
    DateOptions,
    FilterSpec,
    ListSpec,
    MenuSpec,
    PageSpec,
    Row,
    Scope,
    TabSpec,
} from './vocabulary';

export type * from './vocabulary';
export type { AnyPaths, ContractPath, ContractPaths } from '../../dataProvider/types';

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
    | 'password'
    /** A point on the map: fills `position`'s longitude / latitude / address / province / city / area fields. */
    | 'position'
    /** A bar with its text (`progress`): the value is a percentage unless `progress.value` computes one. */
    | 'progress';

export type InputKind =
    | 'text'
    | 'textarea'
    /** Program text (a script): monospace, many lines, no spell checking; tabs and spaces kept as typed. */
    | 'code'
    | 'number'
    | 'select'
    | 'radio'
    | 'reference'
    | 'cascader'
    | 'boolean'
    | 'password'
    /** A tree select whose children load lazily (`tree`). */
    | 'tree'
    /** Rows chosen from a paged call, kept across pages (`picker`); the value is an array of row ids. */
    | 'picker'
    /** Key / value rows (`keyValue`); the value is an array of { key, value }. */
    | 'keyValue'
    /** Repeatable row groups (`rows`): each row a group of declared fields; the value is an array of objects. */
    | 'rows'
    /** A file (the value is a File). */
    | 'file'
    /** A named input widget (`widget`): it gets value and onChange. */
    | 'widget'
    /** A row of toggle buttons, one chosen (a select shown as buttons, e.g. scenes). */
    | 'toggle'
    /** A row of checkboxes over `choices` / `choicesFrom`, several chosen; the value is the array of chosen ids. */
    | 'checkboxes'
    /** A day from a calendar (`dates`); the value is 'YYYY-MM-DD' unless `dates.valueFormat` says otherwise. */
    | 'date'
    /** A time of day (`dates`); the value is 'HH:mm'. */
    | 'time'
    /** A day and a time (`dates`); the value is epoch milliseconds. */
    | 'datetime'
    /** A start and an end, two date-and-time pickers with shortcuts: the field holds the start, `dates.to` the end. */
    | 'dateRange'
    | 'none';

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
    /** Rows kept as choices, given the form values (a filter in the browser, e.g. the projects of the chosen scene). */
    keep?: (row: Row, values: FormValues) => boolean;
    /** A choice's text built from its row, when one field does not say it. */
    optionLabel?: (row: Row) => string;
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
    /**
     * List cells (tables, pickers) on one line, cut with … past this width (px); the whole value shows as its title.
     * Descriptions on detail pages always show the whole value.
     */
    ellipsis?: number;
    /** How a number shows: `grouping: false` for ids and ports (3306, not 3,306), fixed `decimals`, a `unit` appended as written (' MB', '%'). */
    number?: { grouping?: boolean; decimals?: number; unit?: string };
    /** Custom rendering in list and show. */
    render?: (record: Record<string, unknown>) => ReactNode;
    /** For type 'link': where the value links to, from the record. */
    linkTo?: (record: Record<string, unknown>) => string;

    // Form behaviour, read by the generated Create / Edit (engine/inputs.tsx).
    /** The input is shown only while this holds for the form values (its value is kept while hidden). */
    visibleWhen?: (values: FormValues) => boolean;
    /** The input's label, when it depends on the form values (the column and show label stay `label`). */
    formLabel?: (values: FormValues) => string;
    /** The text under the input, when it depends on the form values (the size of the text typed so far). */
    formHelperText?: (values: FormValues) => string;
    /** Load the input's choices (select, radio) or tree (cascader) from a custom call. */
    choicesFrom?: ChoicesSource;
    /**
     * When the user changes this field, set other fields: a fixed map, or a function of the new value (answer
     * undefined to leave them alone).
     */
    resets?: FormValues | ((value: unknown, values: FormValues) => FormValues | undefined);
    /** Radio buttons in a row (default) or a column. */
    row?: boolean;

    /** Descriptions show a copy button beside the value (复制成功). */
    copy?: boolean;
    /** Descriptions show ****** until 显示 is clicked. */
    masked?: boolean;
    /** Shown in the form with its value, but not editable. */
    locked?: boolean;
    /** What differs in one view: `{ edit: { locked: true, maxLength: 100 } }`. */
    perView?: Partial<Record<ViewName, Partial<FieldDefinition>>>;
    /** Characters removed as the person types: 'ascii' keeps printable ASCII, 'digits' digits only. */
    inputFilter?: 'ascii' | 'digits' | ((value: string) => string);
    /** A select also writes the chosen option's text into this field (the name beside the code). */
    nameField?: string;
    /** Tree select (input 'tree'): roots and children from one call, the parent's value in `parentParam`. */
    tree?: {
        source: CallRef;
        parentParam: string;
        /** Parent value asked for the roots (default 0). */
        rootValue?: string | number;
        optionValue?: string;
        optionText?: string;
        /** Whether a node has children to load (default: always, until loaded empty). */
        hasChildren?: (node: Row, level: number) => boolean;
        /** A node shown but not choosable (level is 1-based). */
        disabled?: (node: Row, level: number) => boolean;
        /** A first choice that is not a node, e.g. { id: 0, name: '无（作为一级分组）' }. */
        emptyOption?: Choice;
        /** Wait before loading children (ms), so a fast scroll does not ask for every node. */
        delay?: number;
        /** The roots' own call, when another call than `source` answers them (its params alone; no parentParam). */
        roots?: CallRef;
        /** While this answers a text (e.g. 选择项目后可选择该项目的分组), no node is asked for and the text is shown. */
        blocked?: (values: FormValues) => string | undefined;
        /** A caption under a node (why it is disabled, e.g. 第三级分组，不能作为父组). */
        note?: (node: Row, level: number) => string | undefined;
    };
    /** Picker (input 'picker'): rows of a paged call with checkboxes; the selection survives paging and search. */
    picker?: {
        source: CallRef;
        columns: Array<string | [string, FieldDefinition]>;
        rowId: string;
        perPage?: number;
        filters?: FilterSpec[];
        /** Only one row may be chosen. */
        single?: boolean;
        /** Field naming a row in its checkbox's label (`选择 SL-BJ-0001`; default rowId). */
        rowLabel?: string;
        /** How the chosen count is said (default `已选 ${n} 个`). */
        selectedText?: (count: number) => string;
        /** A row shown but not choosable, with the reason beside it ('已添加'); false: choosable. */
        disabled?: (row: Row, scope: Scope) => string | false;
        /** The value holds the chosen rows themselves, not their ids (a submit that needs the whole row). */
        keepRows?: boolean;
        /** Text when the call answers no rows (default 暂无可选的数据). */
        empty?: string;
        /** Rows already taken (staff already on the project): shown ticked, not choosable, with this note. */
        taken?: (row: Row, scope: Scope) => string | undefined;
    };
    /** Key / value rows (input 'keyValue'). */
    keyValue?: {
        keyLabel: string;
        valueLabel: string;
        addLabel?: string;
        max?: number;
        /** Rows already saved (`when`) are deleted at once through `call` (the row in `scope.values`) after `confirm`. */
        remove?: {
            when: (row: Row) => boolean;
            confirm: (row: Row) => string;
            call: CallRef;
            success?: string;
            failure?: string;
        };
    };
    /**
     * A 'textarea' made for code or JSON: at least `minRows` lines (default 3), and `monospace` letters with tabs and
     * spaces kept as typed.
     */
    textarea?: { minRows?: number; monospace?: boolean };
    /**
     * Repeatable row groups (input 'rows'): each row shows `fields` side by side with a delete button. Inside a row,
     * `visibleWhen`, `formLabel`, `choicesFrom.params` / `keep` and `resets` see the row as `values.$row` and reset
     * fields of the same row.
     */
    rows?: {
        fields: Array<[string, FieldDefinition]>;
        /** The add button's label (default 添加). */
        addLabel?: string;
        /** Values of a new row. */
        newRow?: FormValues;
        max?: number;
        /** Rows that cannot be deleted below this count. */
        min?: number;
        /** What one row is called in accessible names (删除触发条件第1行); default the label. */
        rowLabel?: string;
        /** CSS grid columns of a row, delete button included (default: the visible fields share the width). */
        columns?: string;
        /** Text when there is no row (default 暂无<label>). */
        empty?: string;
    };
    /** Type 'progress': the percentage and the words beside the bar, from the record (default: the value and `${value}%`). */
    progress?: {
        value?: (record: Row) => number | undefined;
        text?: (record: Row) => string;
        color?: (record: Row) => 'primary' | 'success' | 'error' | 'warning' | 'info';
    };
    /** Date and time inputs ('date', 'time', 'datetime', 'dateRange'): bounds, disabled days, shortcuts, the value's form. */
    dates?: DateOptions;
    /**
     * File input: accepted extensions without the dot, the largest size in bytes, and the entity's own words for a
     * refused file (`refusals`: type, size, empty; a missing file is the schema's `required` message).
     */
    file?: { accept?: string[]; maxSize?: number; refusals?: { type?: string; size?: string; empty?: string } };
    /** Named input widget (input 'widget'), from the widget registry. */
    widget?: string;
    /** Props given to the input widget beside value and onChange (a mode, a nested flag). */
    widgetProps?: Record<string, unknown>;
    /** Type 'position': the form fields the picked point fills. */
    position?: {
        longitude: string;
        latitude: string;
        address?: string;
        province?: string;
        city?: string;
        area?: string;
        adcode?: string;
    };
}

/** @deprecated A link row action of the first vocabulary; say `{ kind: 'link', ... }` (Action) instead. */
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
    rowActions?: Action[];
    /** Buttons above the table beside create (refresh, import, export, ...). */
    toolbar?: Action[];
    /** Figures above the table. */
    counters?: ListSpec['counters'];
    /** A 跳至 N 页 box beside the pager. */
    jumper?: boolean;
    /** Prefix of the list's URL state. */
    urlPrefix?: string;
    /** Edit opens in a dialog over the list (the create form's fields, `perView.edit` applied, editSchema). */
    editInDialog?: boolean;
    /** The call the list reads (default: the resource's getList). */
    source?: CallRef;
    /** The columns, when not every field shown in 'list'. */
    columns?: ListSpec['columns'];
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
    /** Actions over the selected rows (their scope's `selected`). */
    bulkActions?: Action[];
    /** The delete confirmation as a function of the row. */
    deleteConfirmOf?: (record: Row) => string;
    /**
     * The list page with tabs: the generated list is the first tab (key 'list'), `tabs` follow it, each a column of
     * sections as on a page. The tab lives in the query param `param` (default 'tab'); the list's own tab leaves
     * it out. Create, show, edit and delete stay the generated ones.
     */
    tabs?: {
        /** The generated list's tab (default: the resource label). */
        listLabel?: string;
        param?: string;
        /** The tab set's accessible name (default: the resource label). */
        label?: string;
        tabs: TabSpec[];
    };
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

/** C: the contract its `api` paths are checked against; the engine takes any (AnyPaths). */
export interface ResourceDefinition<C = AnyPaths> {
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
    api?: ApiMapping<C>;
    messages?: Messages;
    /** Replace any generated view; false removes the view. */
    views?: Partial<Record<ViewName, ComponentType | false>>;
    /** How a record is named in titles and references. */
    recordRepresentation?: string | ((record: Record<string, unknown>) => string);
    /** Hidden from the menu (reached through links only). */
    hidden?: boolean;
    /** The resource's menu entries (label, icon, section, order, routes that light it); false or none: no entry. */
    menu?: MenuSpec | MenuSpec[] | false;
    /** Screens of the resource at routes of their own: detail pages, the dashboard, overviews. */
    pages?: PageSpec[];
    /**
     * The rights family (schemas/rights.ts) of the generated 新建 / 编辑 / 删除: they need `${family}.create`,
     * `.edit`, `.delete` and are hidden for a user whose role lacks them (docs/roles.md).
     */
    rightFamily?: string;
}

/**
 * A resource definition, its `api` paths and methods checked against openapi.yaml (src/api/schema.d.ts): a path or
 * method the contract does not declare fails `tsc`. A definition over an invented platform (an engine test) names
 * its contract: `defineResource<AnyPaths>({ ... })`.
 */
export function defineResource<C extends object = ContractPaths>(
    // `[C][C extends unknown ? 0 : 0]` is C, written so that C is never inferred from the definition and stays
    // ContractPaths unless named (TypeScript's NoInfer gives unknown here instead of the default).
    definition: ResourceDefinition<[C][C extends unknown ? 0 : 0]>,
): ResourceDefinition {
    return definition as unknown as ResourceDefinition;
}
