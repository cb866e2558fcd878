import type { ComponentType, ReactNode } from 'react';
import type { AnyObjectSchema } from 'yup';
import type { AnyPaths, ApiMapping, ContractPaths } from '../../dataProvider/types';
import type {
    Action,
    CallRef,
    DateOptions,
    DialogWidth,
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
    | 'progress'
    /**
     * A time range of a day that may cross midnight, `{ start: 'HH:mm', end: 'HH:mm' }` (an end not after the start is
     * on the next day): shown as 22:00–次日 06:00, edited by the 'timeRange' input; its yup rule is `timeRangeRule`
     * (src/engine/timeRange.ts).
     */
    | 'timeRange';

export type InputKind =
    | 'text'
    | 'textarea'
    /** Program text (a script, SQL, JSON): a CodeMirror editor (`code.language`), a monospace textarea while it loads. */
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
    /**
     * Two times of day, 开始 至 结束, that may cross midnight: 次日 shows beside an end not after the start. The value is
     * `{ start: 'HH:mm', end: 'HH:mm' }`, null when both are cleared; validate it with `timeRangeRule({ label })`
     * (src/engine/timeRange.ts: both ends or neither, 'HH:mm', not equal unless `allowSame`).
     */
    | 'timeRange'
    | 'none';

export interface Choice {
    /** The value stored and sent. */
    id: string | number;
    /** The text shown. */
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
    /** The call's params from the form values; when they change the choices load again. */
    params?: (values: FormValues) => Record<string, unknown>;
    /** Property of a loaded row holding its value (default 'id'). */
    optionValue?: string;
    /** Property of a loaded row holding its text (default 'name'). */
    optionText?: string;
    /** Property holding a node's children ('cascader'; default 'children'). */
    childrenField?: string;
    /** Rows kept as choices, given the form values (a filter in the browser, e.g. the projects of the chosen scene). */
    keep?: (row: Row, values: FormValues) => boolean;
    /** A choice's text built from its row, when one field does not say it. */
    optionLabel?: (row: Row) => string;
}

export interface FieldDefinition {
    /** The column header, the description's label and the input's label (Chinese). */
    label: string;
    /** What the value is: decides its display and its default input (default 'text'). */
    type?: FieldType;
    /** Views that show this field. Defaults: every view except create/edit when readOnly. */
    views?: ViewName[];
    /** Input kind on create / edit; defaults from the type. 'none' keeps the field out of forms. */
    input?: InputKind;
    /** Shown in lists and pages but kept out of create / edit forms. */
    readOnly?: boolean;
    /** dayjs format for datetime / date fields. */
    format?: string;
    /** Static choices of a select, radio, toggle or checkboxes input; their names show in lists and pages. */
    choices?: Choice[];
    /** Resource name this field references (input kind 'reference'). */
    reference?: string;
    /** Reference input: the referenced row's property holding the value (default 'id'). */
    optionValue?: string;
    /** Reference input: the referenced row's property shown as its text (default 'name'). */
    optionText?: string;
    /** Marks the input as required (the schema decides validity; this only draws the asterisk). */
    required?: boolean;
    /** Default value on create. */
    defaultValue?: unknown;
    /** Input max length (the browser stops typing past it). */
    maxLength?: number;
    /** Placeholder / helper text shown under the input. */
    helperText?: string;
    /** react-admin's `sortable` for the list column (default false). */
    sortable?: boolean;
    /**
     * List cells (tables, pickers) on one line, cut with … past this width (px); the whole value shows as its title.
     * Descriptions on detail pages always show the whole value.
     */
    ellipsis?: number;
    /** How a number shows: `grouping: false` for ids and ports (3306, not 3,306), fixed `decimals`, a `unit` appended as written (' MB', '%'). */
    number?: {
        /** Thousands separators (default true; false for ids and ports). */
        grouping?: boolean;
        /** Fixed number of decimals. */
        decimals?: number;
        /** Appended as written (' MB', '%'). */
        unit?: string;
    };
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
        /** The call answering a node's children (and the roots, unless `roots`). */
        source: CallRef;
        /** The param carrying the parent node's value. */
        parentParam: string;
        /** Parent value asked for the roots (default 0). */
        rootValue?: string | number;
        /** A node's property holding its value (default 'id'). */
        optionValue?: string;
        /** A node's property holding its text (default 'name'). */
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
        /** The paged call answering the rows to choose from. */
        source: CallRef;
        /** The columns: fields of `rowsOf` (else of the source call's resource), or pairs with their own definition. */
        columns: Array<string | [string, FieldDefinition]>;
        /**
         * The resource whose rows the source answers, when not the one being edited (a group's member picker over
         * contacts): named columns take its fields' labels, types and links.
         */
        rowsOf?: string;
        /** The field identifying a row (its value is what the picker keeps). */
        rowId: string;
        /** Rows per page (default 10). */
        perPage?: number;
        /** Filters above the rows (a search box, a select), sent with the call. */
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
        /** The key column's label. */
        keyLabel: string;
        /** The value column's label. */
        valueLabel: string;
        /** The add button's label (default 添加). */
        addLabel?: string;
        /** Most rows allowed; the add button is disabled past it. */
        max?: number;
        /** Rows already saved (`when`) are deleted at once through `call` (the row in `scope.values`) after `confirm`. */
        remove?: {
            /** Which rows are already saved (deleted through `call`, not just from the form). */
            when: (row: Row) => boolean;
            /** The confirmation asked before deleting a saved row. */
            confirm: (row: Row) => string;
            /** The call deleting a saved row (the row in `scope.values`). */
            call: CallRef;
            /** Said after the row is deleted. */
            success?: string;
            /** Said when the delete fails without words of its own. */
            failure?: string;
        };
    };
    /** The textarea's height: at least `minRows` lines (default 3). Program text or JSON is a 'code' input instead. */
    textarea?: {
        /** Lines shown at least (default 3). */
        minRows?: number;
    };
    /**
     * A 'code' input's editor: CodeMirror (loaded on first use) with the `language`'s highlighting, a plain
     * monospace textarea while it loads or where the page cannot measure text (jsdom).
     */
    code?: {
        /** The language highlighted (default 'javascript': the data parsing scripts). */
        language?: 'sql' | 'javascript' | 'json';
    };
    /**
     * Repeatable row groups (input 'rows'): each row shows `fields` side by side with a delete button. Inside a row,
     * `visibleWhen`, `formLabel`, `choicesFrom.params` / `keep` and `resets` see the row as `values.$row` and reset
     * fields of the same row.
     */
    rows?: {
        /** The fields of one row, side by side: pairs of source and definition. */
        fields: Array<[string, FieldDefinition]>;
        /** The add button's label (default 添加). */
        addLabel?: string;
        /** Values of a new row. */
        newRow?: FormValues;
        /** Most rows allowed; the add button is disabled past it. */
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
        /** The bar's percentage from the record (default: the value). */
        value?: (record: Row) => number | undefined;
        /** The words beside the bar (default `${value}%`). */
        text?: (record: Row) => string;
        /** The bar's colour from the record (default primary). */
        color?: (record: Row) => 'primary' | 'success' | 'error' | 'warning' | 'info';
    };
    /** Date and time inputs ('date', 'time', 'datetime', 'dateRange'): bounds, disabled days, shortcuts, the value's form. */
    dates?: DateOptions;
    /**
     * File input: accepted extensions without the dot, the largest size in bytes, and the entity's own words for a
     * refused file (`refusals`: type, size, empty; a missing file is the schema's `required` message).
     */
    file?: {
        /** Accepted extensions, without the dot. */
        accept?: string[];
        /** Largest file in bytes. */
        maxSize?: number;
        /** The entity's own words for a refused file. */
        refusals?: {
            /** The extension is not in `accept`. */
            type?: string;
            /** Larger than `maxSize`. */
            size?: string;
            /** A file of 0 bytes. */
            empty?: string;
        };
    };
    /** Named input widget (input 'widget'), from the widget registry. */
    widget?: string;
    /** Props given to the input widget beside value and onChange (a mode, a nested flag). */
    widgetProps?: Record<string, unknown>;
    /** Type 'position': the form fields the picked point fills. */
    position?: {
        /** The form field filled with the longitude. */
        longitude: string;
        /** The form field filled with the latitude. */
        latitude: string;
        /** The form field filled with the address. */
        address?: string;
        /** The form field filled with the province. */
        province?: string;
        /** The form field filled with the city. */
        city?: string;
        /** The form field filled with the district. */
        area?: string;
        /** The form field filled with the district's administrative code. */
        adcode?: string;
    };
}

/** @deprecated A link row action of the first vocabulary; say `{ kind: 'link', ... }` (Action) instead. */
export interface RowAction {
    /** The button's text. */
    label: string;
    /** Icon shown before the label. */
    icon?: ComponentType;
    /** A route built from the record. */
    to?: (record: Record<string, unknown>) => string;
    /** Shown only when this returns true. */
    when?: (record: Record<string, unknown>) => boolean;
}

export interface ListOptions {
    /** Rows per page (SPEC.md §9: 10). */
    perPage: number;
    /** The page sizes offered, exactly as given (10, 20, 30, 40). */
    perPageOptions: number[];
    /** Fields offered as filters; the first 'text' filter is the search box. */
    filters?: Array<{
        /** The filter's name (sent under it unless the api's `filters` renames it). */
        source: string;
        /** The filter's label (the search box's placeholder). */
        label: string;
        /** 'text' (default): the search box; 'select' / 'radio': a select over `choices`. */
        input?: InputKind;
        /** react-admin's word, kept for old definitions: every declared filter is always shown. */
        alwaysOn?: boolean;
        /** A select filter's choices. */
        choices?: Choice[];
    }>;
    /** Actions on each row, before 查看 / 编辑 / 删除. */
    rowActions?: Action[];
    /** Buttons above the table beside create (refresh, import, export, ...). */
    toolbar?: Action[];
    /** Figures above the table. */
    counters?: ListSpec['counters'];
    /** A 跳至 N 页 box beside the pager. */
    jumper?: boolean;
    /** Prefix of the list's URL state. */
    urlPrefix?: string;
    /**
     * Edit opens in a dialog over the list (the 'edit' fields, `perView.edit` applied, editSchema). The form starts
     * from the record read afresh by the api's `getOne` when there is one (the list row may lack fields the form
     * needs); `{ load: 'row' }` starts it from the list row instead. `width`: the dialog's (default 'sm').
     */
    editInDialog?:
        | boolean
        | {
              /** The edit dialog's width (default 'sm'). */
              width?: DialogWidth;
              /** 'getOne' (default when the api has one): the form starts from the record read afresh; 'row': from the list row. */
              load?: 'getOne' | 'row';
          };
    /** The call the list reads (default: the resource's getList). */
    source?: CallRef;
    /** The columns, when not every field shown in 'list'. */
    columns?: ListSpec['columns'];
    /**
     * 查看 / 编辑 buttons on each row. Defaults: 查看 when the show view exists and no rowActions are given, 编辑 when
     * the edit view exists. 删除 shows when the api has a delete call, unless deleteConfirm is false.
     */
    show?: boolean;
    /** The generated 编辑 button (default: when the edit view exists). */
    edit?: boolean;
    /** Delete button on each row with this confirmation text; false hides delete. */
    deleteConfirm?: string | false;
    /** Title of the delete confirmation (default 提示). */
    deleteConfirmTitle?: string;
    /** Not read by the engine: declare a delete in `bulkActions` instead. */
    bulkDelete?: boolean;
    /** Create opens in a dialog over the list instead of its own page; `width`: the dialog's (default 'sm'). */
    createInDialog?:
        | boolean
        | {
              /** The create dialog's width (default 'sm'). */
              width?: DialogWidth;
          };
    /** Not read by the engine: lists keep the order the call answers. */
    sort?: {
        /** The field sorted by (not read, see `sort`). */
        field: string;
        /** Ascending or descending (not read, see `sort`). */
        order: 'ASC' | 'DESC';
    };
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
        /** The query param holding the tab (default 'tab'). */
        param?: string;
        /** The tab set's accessible name (default: the resource label). */
        label?: string;
        /** The tabs after the list's own, each a column of sections as on a page. */
        tabs: TabSpec[];
    };
}

export interface Messages {
    /** Toast after create (default 创建成功). */
    created?: string;
    /** Toast after edit (default 修改成功). */
    updated?: string;
    /** Toast after delete (default 删除成功). */
    deleted?: string;
    /** Shown when the server answers a failure without a message of its own. */
    createFailed?: string;
    /** Shown when an update fails without a message of its own. */
    updateFailed?: string;
    /** Shown when a delete fails without a message of its own (default 删除失败). */
    deleteFailed?: string;
}

/** C: the contract its `api` paths are checked against; the engine takes any (AnyPaths). */
export interface ResourceDefinition<C = AnyPaths> {
    /** Code name: calls, refresh lists and other definitions name the resource by it. */
    name: string;
    /** Chinese label: titles, buttons (新建<label>), not-found notices. */
    label: string;
    /** An @mui/icons-material component, for the menu and titles. */
    icon?: ComponentType;
    /** The route path as SPEC.md names it, without the leading slash (defaults to name). */
    path?: string;
    /** Further routes (e.g. '/productDetail/*') rendered by this resource's custom views, inside the layout. */
    routes?: Array<{
        /** The route (react-router style). */
        path: string;
        /** The component rendered at it. */
        element: ComponentType;
        /** Rendered outside the layout (no menu or header). */
        noLayout?: boolean;
    }>;
    /** Field holding the record id in the platform's rows (default 'id'). */
    idField?: string;
    /** What lists and pages show and forms edit, by source name (sections 4 and 5 of this guide). */
    fields: Record<string, FieldDefinition>;
    /** The generated list at `/<path>` (section 7). */
    list?: ListOptions;
    /** yup schema for create / edit (the server validates with the same one). */
    schema?: AnyObjectSchema;
    /** Schema for edit when it differs from create. */
    editSchema?: AnyObjectSchema;
    /** How every call reaches the platform (section 3), checked against the contract `C`. */
    api?: ApiMapping<C>;
    /** The generated views' toasts. */
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
