/**
 * The declarative vocabulary of screens: actions, lists over any call, detail pages of tabs and sections,
 * widgets. Types only: a definition imports these and stays data, so the first screen does not carry the
 * components that render them (src/engine/actions, list, page, inputs do, in chunks of their own).
 *
 * Every function of the vocabulary receives a Scope: what the screen knows where the action, list or section
 * sits (the record of the row or of the detail page, the route's params and query, the rows selected, the form
 * values of the dialog being submitted).
 */
import type { ComponentType } from 'react';
import type { Dayjs } from 'dayjs';
import type { AnyObjectSchema } from 'yup';
import type { FieldDefinition, FormValues } from './types';

export type Row = Record<string, unknown>;

export interface Scope {
    /** The row (row actions), the detail page's record (header, tabs, sections), or {} (list toolbar). */
    record: Row;
    /** Path params of the route (`/devInstanceDetail/:productId/:deviceId` → { productId, deviceId }). */
    route: Record<string, string>;
    /** The query string of the URL. */
    query: Record<string, string>;
    /** Rows selected in the list (bulk actions). */
    selected?: Row[];
    /** Form values being submitted (a form action's submit call). */
    values?: FormValues;
    /** Answers of the page-level calls (`PageSpec.load`), by name. */
    data?: Record<string, unknown>;
    /** The detail page's record, kept when a row or a dialog takes `record` (a row action naming the page's device). */
    page?: Row;
}

export type Of<T> = T | ((scope: Scope) => T);

/**
 * One of a resource's calls: a custom call (`api.custom[name]`) or a verb ('getList', 'getOne', 'create',
 * 'update', 'delete'), of the resource the screen belongs to unless `resource` names another. `params` builds
 * the call's input from the scope (default: the record, then the form values).
 */
export interface CallRef {
    /** The resource whose call it is (default: the resource the screen belongs to). */
    resource?: string;
    /** A custom call's name (`api.custom`) or a verb ('getList', 'getOne', 'create', 'update', 'delete'). */
    call: string;
    /** The call's input from the scope (default: the record, then the form values). */
    params?: (scope: Scope) => Record<string, unknown>;
    /**
     * Chooses the call by the scope instead of `call` (which stays the default and the cache key's name): e.g. a
     * video device saved by `addRtsp` or `addGb` as the form's protocol says. Paths need not share a prefix.
     */
    by?: (scope: Scope) => string | undefined;
    /** Ask again every this many seconds while shown (live figures). */
    every?: number;
    /** Runs the call once per params object, in order (no batch path on the platform); answers the list of answers. */
    each?: (scope: Scope) => Array<Record<string, unknown>>;
    /** Names one `each` item in the failure message ('温度（Temp）：标识符已存在'). */
    eachName?: (params: Record<string, unknown>) => string;
}

/** What reloads after an action succeeds: resource names (their lists, records and calls), or 'page' (everything on the page). Default: the action's resource. */
export type Refresh = string[];

interface ActionBase {
    /** The button's text (or a function of the scope). */
    label: Of<string>;
    /** Stable key (default: the label). */
    key?: string;
    /** An @mui/icons-material component. */
    icon?: ComponentType;
    /** The action is shown only while this holds. */
    when?: (scope: Scope) => boolean;
    /** Shown but disabled while this holds; a string is the tooltip that says why. */
    disabled?: (scope: Scope) => boolean | string;
    /** 'contained' for the primary toolbar button; rows use text buttons. */
    variant?: 'text' | 'outlined' | 'contained';
    /** MUI colour of the button ('error' for deletes). */
    color?: 'primary' | 'error' | 'inherit' | 'secondary' | 'success' | 'warning';
    /** The button's accessible name when its label alone is ambiguous (编辑 on every row → `编辑 ${identifier}`). */
    ariaLabel?: (scope: Scope) => string;
    /** Asked on click (a form: again on submit, with `values`): a reason it cannot run now, said as a warning; nothing runs. */
    guard?: (scope: Scope) => string | null | undefined;
    /**
     * The right the action needs (`family.action`, schemas/rights.ts, e.g. 'device.delete'): hidden for a user whose
     * role lacks it (engine/rights.ts). Say the same right as the call's x-right in openapi.yaml.
     */
    right?: string;
}

/** A route built from the scope. */
export interface LinkAction extends ActionBase {
    kind: 'link';
    /** The route the button opens, from the scope. */
    to: (scope: Scope) => string;
}

/** A call, with an optional confirmation first, a success message, and what to reload after. */
export interface CallAction extends ActionBase {
    kind: 'call';
    /** The call it runs. */
    call: CallRef;
    /** A confirmation asked first (its lines become paragraphs); 确定 runs the call. */
    confirm?: Of<string>;
    /** Title of the confirmation (default 提示). */
    confirmTitle?: string;
    /**
     * Said after success: a text, or one built from the call's answer. `answer` is what the call's `read` picks from the
     * envelope (the whole `data`, or `read: 'msg'` for the platform's own words), not the envelope itself.
     */
    success?: string | ((answer: unknown, scope: Scope) => string);
    /** While the call runs, a moving bar beside the button with this text (default `正在${label}…`); false: none. */
    progress?: Of<string> | false;
    /** Shown when the call fails without a message of its own (default '操作失败'). */
    failure?: string;
    /** What reloads after success (default: the action's resource). */
    refresh?: Refresh;
    /** After success, go to this route (e.g. back to the list after deleting the record of a detail page). */
    then?: (answer: unknown, scope: Scope) => string | undefined;
    /** Read afresh when the confirmation opens; its answer is laid over the scope's record for `confirm` (a count). */
    confirmLoad?: CallRef;
    /**
     * After success, values of the answer shown in a dialog until the person closes it: what the platform answers only
     * once (a new AccessKey's secret, a reset password). Each line is a label and a dotted path into the answer, with a copy button
     * when `copy`; `note` says why it matters (it will not be shown again).
     */
    reveal?: RevealSpec;
}

export interface RevealSpec {
    /** The dialog's title. */
    title: Of<string>;
    /** The values shown, each a line. */
    fields: Array<{
        /** The value's label. */
        label: string;
        /** Dotted path of the value in the answer. */
        path: string;
        /** A 复制 button beside the value. */
        copy?: boolean;
    }>;
    /** Why it matters (it will not be shown again), as a warning above the values. */
    note?: Of<string>;
    /** The closing button (default 我已保存). */
    closeLabel?: string;
    /** Dialog width (default 'sm'). */
    width?: DialogWidth;
}

/** A dialog's largest width, MUI's breakpoints (xs 444 px, sm 600, md 900, lg 1200, xl 1536). */
export type DialogWidth = 'xs' | 'sm' | 'md' | 'lg' | 'xl';

/**
 * A form in a dialog: its inputs (a field of the resource, or a pair bringing its own definition), a yup schema,
 * and the call it submits to (create, update or any custom call such as bind, batch add, add staff). The call's
 * params see the form values in `scope.values` (default: the record, then the values).
 */
export interface FormAction extends ActionBase {
    kind: 'form';
    /** The dialog's title (default: the label). */
    title?: Of<string>;
    /** The inputs, in order: a field of the resource by name, or a pair bringing its own definition. */
    fields: Array<string | [string, FieldDefinition]>;
    /** The yup schema deciding on 确定; its messages show under the inputs. */
    schema?: AnyObjectSchema;
    /** Starting values (edit: from the record). */
    defaults?: (scope: Scope) => FormValues;
    /** 'edit' makes the fields' `perView.edit` apply (locked fields, other limits); default 'create'. */
    mode?: 'create' | 'edit';
    /** The call the values go to (its params see them in `scope.values`). */
    submit: CallRef;
    /** The submit button's text (default 确定). */
    submitLabel?: string;
    /** Said after success: a text, or one built from the answer. */
    success?: string | ((answer: unknown, scope: Scope) => string);
    /** Said when the call fails without a message of its own. */
    failure?: string;
    /** What reloads after success (default: the action's resource). */
    refresh?: Refresh;
    /** After success, go to this route (from the answer). */
    then?: (answer: unknown, scope: Scope) => string | undefined;
    /** A note under the inputs (limits, hints). */
    note?: Of<string>;
    /** Dialog width (default 'sm'). */
    width?: DialogWidth;
    /** A call answered before the form opens; `defaults` see its answer in `scope.data.load` (a device's saved tags). */
    load?: CallRef;
    /** What speaks while the person types (before and between saves); `schema` alone decides on 确定. */
    liveSchema?: AnyObjectSchema;
    /** 确定 stays disabled until this holds for the form values (e.g. rows chosen in a picker). */
    ready?: (values: FormValues) => boolean;
    /** A server failure whose message belongs to one input: that input's source (shown under it, not as a toast). */
    errorField?: (message: string) => string | undefined;
    /** Fields shown with their starting value but not editable in this scope (the product a list is filtered to). */
    lock?: (scope: Scope) => string[];
    /** The dialog opens while the URL's query has this param (`?type=program`); closing it removes the param. */
    openWith?: {
        /** The query param that opens the dialog. */
        query: string;
        /** Opens only for this value of the param (default: any). */
        value?: string;
    };
    /**
     * Asked after the values pass the schema, before the call (its scope has `values`): 取消 goes back to the form
     * with the values kept, 确定 submits. For what reaches a device or cannot be undone.
     */
    confirm?: Of<string>;
    /** Title of the `confirm` question (default 提示). */
    confirmTitle?: string;
}

/** A file the browser downloads: a GET call's URL (exports, templates, device files). */
export interface DownloadAction extends ActionBase {
    kind: 'download';
    /** The GET call whose URL the browser follows (or whose answer `saveAs` saves). */
    call: CallRef;
    /** The call answers data, not a file: its answer is saved as a JSON file of this name. */
    saveAs?: (scope: Scope) => string;
    /** Shown when a `saveAs` call fails without a message of its own (default '操作失败'). */
    failure?: string;
}

/** An upload dialog: choose a file, a progress bar while it travels, then the answer (or a named result widget). */
export interface UploadAction extends ActionBase {
    kind: 'upload';
    /** The dialog's title (default: the label). */
    title?: string;
    /** The call the file (and the further inputs) travel to. */
    call: CallRef;
    /** The form key the file travels under (default 'file'). */
    fileField?: string;
    /** Accepted extensions, without the dot. */
    accept?: string[];
    /** Largest file in bytes. */
    maxSize?: number;
    /** Why a chosen file is refused before it travels (replaces the accept / maxSize rules' own words). */
    check?: (file: File) => string | undefined;
    /** Further inputs of the upload form (e.g. the product an import goes to). */
    fields?: Array<string | [string, FieldDefinition]>;
    /** The yup schema of the further inputs. */
    schema?: AnyObjectSchema;
    /** A note under the inputs (the file's format, limits). */
    note?: Of<string>;
    /** Said after success: a text, or one built from the answer. */
    success?: string | ((answer: unknown, scope: Scope) => string);
    /** Said when the call fails without a message of its own. */
    failure?: string;
    /** What reloads after success (default: the action's resource). */
    refresh?: Refresh;
    /** A widget that shows the answer (e.g. 'importResult'); without it the dialog closes on success. */
    result?: string;
    /** Extra actions in the dialog (e.g. download the template). */
    extra?: Action[];
    /** The file is read in the browser: `value` travels under fileField instead of the file; `error` refuses it. */
    parse?: (text: string) => { value?: unknown; error?: string };
    /** Said once a parsed file is chosen (what it will change), from its value and the scope. */
    preview?: (value: unknown, scope: Scope) => string;
    /** Text of the submit button (default 上传). */
    submitLabel?: string;
    /** Dialog width (default 'sm'). */
    width?: DialogWidth;
    /** Starting values of the further inputs (the product the screen is filtered to). */
    defaults?: (scope: Scope) => FormValues;
    /** With a result: a button that starts another upload (继续导入); the closing button says `doneLabel` (default 关闭). */
    again?: string;
    /** With a result: the closing button's text (default 关闭). */
    doneLabel?: string;
    /** Own words for a refused file: wrong extension, too large, empty (defaults say the limits). */
    refusals?: {
        /** The extension is not in `accept` (default 只能上传 .csv 格式的文件). */
        type?: string;
        /** Larger than `maxSize` (default 文件大小不能超过 10MB). */
        size?: string;
        /** A file of 0 bytes (default 文件内容为空). */
        empty?: string;
        /** 上传 pressed with no file chosen (default 请选择文件). */
        missing?: string;
    };
}

/** A switch showing the record's state (`checked`); turning it runs `on` or `off`, each a call action (confirm, success). */
export interface SwitchAction extends ActionBase {
    kind: 'switch';
    /** Whether the switch is on, from the record. */
    checked: (scope: Scope) => boolean;
    /** A caption shown beside the switch (its `label` is the tooltip of its state). */
    text?: Of<string>;
    /** The call action run when the switch is turned on. */
    on: CallAction;
    /** The call action run when the switch is turned off. */
    off: CallAction;
}

/** Copy a value to the clipboard; says 复制成功. */
export interface CopyAction extends ActionBase {
    kind: 'copy';
    /** The text copied, from the scope. */
    value: (scope: Scope) => string;
}

/** A widget that opens in a dialog of the engine (the map picker, the tag editor): it gets `onClose`. */
export interface WidgetAction extends ActionBase {
    kind: 'widget';
    /** The widget's name in the widget registry. */
    widget: string;
    /** The dialog's title (default: the label). */
    title?: Of<string>;
    /** Props given to the widget, from the scope. */
    props?: (scope: Scope) => Record<string, unknown>;
    /** Dialog width (default 'sm'). */
    width?: DialogWidth;
    /** What reloads when the dialog closes after the widget changed something. */
    refresh?: Refresh;
    /** A button under the widget that closes the dialog (e.g. '关闭'), for widgets that only show something. */
    closeLabel?: string;
}

/** Sections (a list, a chart widget) in the engine's dialog, the row as record; lists inside keep their URL state only while it is open. */
export interface DialogAction extends ActionBase {
    kind: 'dialog';
    /** The dialog's title (default: the label). */
    title?: Of<string>;
    /** The sections shown, the row as `record`. */
    sections: Section[];
    /** Dialog width (default 'md'). */
    width?: DialogWidth;
}

export type Action =
    | LinkAction
    | CallAction
    | FormAction
    | DownloadAction
    | UploadAction
    | CopyAction
    | WidgetAction
    | DialogAction
    | SwitchAction;

/** A list filter: the search box, a select (static choices or from a call), a tree select, or text. */
export interface FilterSpec {
    /** The filter's name: the param it travels under (and its URL key, under the list's prefix). */
    source: string;
    /** Its label (a search box's placeholder). */
    label: string;
    /** 'buttons': the label and a row of toggle buttons (全部 and each choice) that wraps as choices grow. */
    input?: 'search' | 'text' | 'select' | 'tree' | 'tabs' | 'dialog' | 'buttons' | 'dateRange';
    /** Static choices of a select, tabs or buttons filter. */
    choices?: Array<{
        /** The value sent. */
        id: string | number;
        /** The text shown. */
        name: string;
    }>;
    /** Choices from a call; `optionValue` / `optionText` name the row's fields. */
    choicesFrom?: CallRef & { optionValue?: string; optionText?: string; childrenField?: string };
    /** Text of the "no filter" choice (default '全部'; false: no such choice). */
    allLabel?: string | false;
    /** The query-string name (default: the source, under the list's prefix). */
    param?: string;
    /** The value while the URL has none. */
    defaultValue?: string;
    /** Params cleared when this one changes (a device chosen under a product is cleared with the product). */
    resets?: string[];
    /**
     * The call needs this filter: no rows are asked for until it has a value. In a picker, the text says what to
     * choose first; in a list, `true` makes a select start on its first choice (暂无可选的{label} when it has none).
     */
    required?: string | boolean;
    /**
     * input 'dialog': a button (the label) opening a form whose fields are filters of their own (each kept in the
     * URL under its name), and a deletable chip saying what is applied; `source` is the field that turns it on.
     */
    dialog?: {
        /** The dialog's title (default: the label). */
        title?: string;
        /** The dialog's inputs, each a filter kept in the URL under its name. */
        fields: Array<[string, FieldDefinition]>;
        /** The yup schema checked on 确定. */
        schema?: AnyObjectSchema;
        /** A note under the inputs. */
        note?: string;
        /** The chip's text saying what is applied, from the values. */
        chip: (values: Record<string, string>) => string;
    };
    /** The value is a path segment (route param `param`); choosing goes to `to(value)`. The call gets it only through `source.params`. */
    path?: {
        /** The route param holding the value. */
        param: string;
        /** The route choosing a value goes to. */
        to: (value: string, scope: Scope) => string;
    };
    /** 'dateRange': the source of the range's end (`source` is its start); both travel as epoch milliseconds, inclusive. */
    to?: string;
    /** 'dateRange': the URL param of the end (default: `to` under the list's prefix). */
    toParam?: string;
    /** 'select': the choices can be searched by typing (a long list such as every product). */
    searchable?: boolean;
    /** 'dateRange': bounds, disabled days and shortcuts (default 今天 / 近7天 / 近30天); `valueFormat` is ignored (epoch ms). */
    dates?: DateOptions;
}

/** A bound of a date input: a value in the input's own form, 'now', or one computed from the form values. */
export type DateBound = string | number | 'now' | ((values: FormValues) => string | number | undefined | null);

/** A shortcut beside a range (or in a single picker's calendar): its text and the value it sets. */
export interface DateShortcut {
    /** The shortcut's text (近7天). */
    label: string;
    /** A range's start and end, or a single picker's value. */
    value: () => [Dayjs, Dayjs] | Dayjs;
}

/** The date inputs' options (input 'date' | 'time' | 'datetime' | 'dateRange', and the 'dateRange' filter). */
export interface DateOptions {
    /** Earliest choosable (a range's end is never before its start). */
    min?: DateBound;
    /** Latest choosable (a range's start is never after its end). */
    max?: DateBound;
    /** Days that cannot be chosen (weekends, days before a release). */
    disabled?: (day: Dayjs) => boolean;
    /**
     * Shortcuts: true gives 今天 / 近7天 / 近30天 beside a range and 今天 (date) or 现在 (datetime, time) in a single
     * picker; false none; or your own. Default: true for ranges, false for single pickers.
     */
    shortcuts?: boolean | DateShortcut[];
    /** 'dateRange' input: the field holding the end (the field's own source holds the start). */
    to?: string;
    /** How the value is kept: 'ms' (epoch milliseconds) or a dayjs format. Defaults: date 'YYYY-MM-DD', time 'HH:mm', datetime and range 'ms'. */
    valueFormat?: 'ms' | string;
    /** Minutes only, or seconds too (datetime, time, range; default false). */
    seconds?: boolean;
}

/** A figure above a list or in a counters section. */
export interface CounterSpec {
    /** The figure's label. */
    label: string;
    /** An @mui/icons-material component: the counters section then shows each figure as a card. */
    icon?: ComponentType;
    /** Dotted path into the counters call's answer (or the scope's record). */
    value: string;
    /** The figure links to this route. */
    to?: (scope: Scope) => string;
    /** The figure's colour (a CSS or palette colour). */
    color?: string;
}

/**
 * A list over any call: top-level, nested in a detail tab, or several on one page. The call's paging names,
 * filters, `read` and `total` come from its ApiCall; the list adds page, page size and filters from its URL
 * state, and `params` from the scope (route, record).
 */
export interface ListSpec {
    /** The call (default: the resource's getList). */
    source?: CallRef;
    /**
     * Columns: fields of the resource whose rows these are (`rowsOf`, else the list's resource), or pairs with their
     * own definition.
     */
    columns: Array<string | [string, FieldDefinition]>;
    /**
     * The resource whose rows the call answers, when not the list's own (a group's 成员 tab listing contacts through
     * the group's own call): named columns take that resource's fields (label, type, link); calls and actions stay
     * the list's.
     */
    rowsOf?: string;
    /** Prefix of this list's URL state (`${prefix}page`, `${prefix}size`, filters); '' for the page's main list. */
    urlPrefix?: string;
    /** Rows per page and the choices; `paging: false` shows every row the call answers. */
    perPage?: number;
    /** The page sizes offered, exactly as given. */
    perPageOptions?: number[];
    /** false: no pager, every row the call answers is shown. */
    paging?: boolean;
    /** A 跳至 N 页 box beside the pager. */
    jumper?: boolean;
    /** Filters above the table, their values in the URL and sent with the call. */
    filters?: FilterSpec[];
    /** Figures above the table (设备总数 / 在线), from a call or the record; `title` names the group of figures. */
    counters?: {
        /** The call answering the figures (default: the scope's record). */
        call?: CallRef;
        /** The figures. */
        items: CounterSpec[];
        /** The figures' group name. */
        title?: string;
    };
    /** Buttons above the table (新建, 导入, 导出, …). */
    toolbar?: Action[];
    /** Buttons on each row (the row as `record`). */
    rowActions?: Action[];
    /** Actions over the selected rows; declaring any shows the checkboxes. */
    bulkActions?: Action[];
    /** Shown when the call answers no rows: text, an optional hint under it and an action; `filtered`: the text instead while a filter is applied (nothing matches rather than nothing there; no action then). */
    empty?: {
        /** The text shown instead of rows. */
        text: Of<string>;
        /** A quieter line under it. */
        hint?: Of<string>;
        /** A button under it that fills the list (添加设备). */
        action?: Action;
        /** The text instead while a filter is applied (no action then). */
        filtered?: string;
        /** The column headers stay above the text (a table that says what it will hold). */
        columns?: boolean;
    };
    /** A 刷新 button that reloads the list; a string is its accessible name ('刷新运行状态'). */
    refresh?: true | string;
    /** Said instead of the server's words when the call fails: a warning toast and the text in place of rows. */
    failure?: string;
    /** The table scrolls within this height in px (a short list beside others). */
    height?: number;
    /** The field that identifies a row (default: the resource's id field). */
    rowId?: string;
    /** A title above the table (its accessible name too). */
    title?: string;
    /** The table's accessible name when no title is shown. */
    label?: string;
    /** Keep the table compact (nested lists). */
    dense?: boolean;
    /** Only while this holds. */
    when?: (scope: Scope) => boolean;
    /**
     * Rows computed in the browser, every one shown (no pager): from the scope (the record, a page load) with no
     * call, or with `source` from that call's whole answer, asked once. undefined: still loading.
     */
    rows?: (scope: Scope, answer?: unknown) => Row[] | undefined;
    /** Shape each row with what the scope knows (names from a page load) before the columns see it. */
    map?: (row: Row, scope: Scope) => Row;
    /** The resource the whole list belongs to (fields, calls, actions), when not the one on screen: another resource's list in a tab. */
    resource?: string;
    /** What the rows are, said in the failure notice (`设备列表` → 设备列表加载失败：…). */
    subject?: string;
    /** Bulk actions sit in the toolbar, always shown, seeing the selection (empty when none; `guard` says what to select). */
    bulkInToolbar?: boolean;
    /** Cells with 8 px side padding instead of 16, so a table of many columns fits a laptop screen. */
    compactCells?: boolean;
}

export interface ChartSpec {
    /** Pie, line or bar chart. */
    kind: 'pie' | 'line' | 'bar';
    /** The call answering the rows. */
    call: CallRef;
    /** Dotted path of the rows in the call's answer (default: the answer itself). */
    rows?: string;
    /** Pie: the row fields of the slice name and value; line/bar: x and each series. */
    name?: string;
    /** Pie: the row field holding a slice's value. */
    value?: string;
    /** Line / bar: the row field on the x axis. */
    x?: string;
    /**
     * `dashed` (line): drawn dashed, so a series that often equals another (replies beside the messages they answer)
     * stays visible where the two meet.
     */
    series?: Array<{
        /** The row field holding the series' values. */
        field: string;
        /** The series' name in the legend. */
        label: string;
        /** The series' colour. */
        color?: string;
        /** Drawn dashed. */
        dashed?: boolean;
    }>;
    /**
     * Pie: fixed slices in this order, each read from the row whose `name` is `key` (0 when none), or from the
     * answer's field `key` when the answer is one object ({ onlineTotal, offlineTotal }).
     */
    slices?: Array<{
        /** The row's name (or the answer's field) the slice reads. */
        key: string;
        /** The slice's name in the legend. */
        label: string;
        /** The slice's colour. */
        color?: string;
    }>;
    /** Names for coded slice names (alert levels 1/2/3 → 紧急/严重/一般), and colours. */
    names?: Record<string, string>;
    /** Colours of slices by their (coded) name. */
    colors?: Record<string, string>;
    /** Shown when every value is 0 or there are no rows. */
    empty?: string;
    /** The chart's height in px. */
    height?: number;
    /** Line and bar: controls above the chart, their values in the URL (`param`) and sent under `source`. */
    filters?: FilterSpec[];
    /** Line and bar: a line beside the title from the rows (最近一天 99 分); undefined shows nothing. */
    summary?: (rows: Row[]) => string | undefined;
    /** Nothing to draw whatever a call would say (a project without devices): the empty text, no call. */
    noData?: (scope: Scope) => boolean;
    /** Line and bar: the value axis from min to max (a score of 0 to 100). */
    yRange?: [number, number];
}

/**
 * A span of the week grid (a rota shift, a rule's time window, a recording schedule): `weekday` 1 (Monday) to 7
 * (Sunday), `start` and `end` as 'HH:mm' ('24:00' ends at midnight). An end not after the start ends on the next day:
 * 22:00–06:00 shows on its own day from 22:00 and on the next from 00:00 (Sunday's continues on Monday); an end equal
 * to the start lasts 24 hours (00:00–00:00 is the whole day).
 */
export interface WeekSpan {
    /** Tells the spans apart (a shift's id). */
    key: string | number;
    /** What the span is (the person on call, the window's name): its text, tooltip, colour and legend entry. */
    label: string;
    /** 1 (Monday) to 7 (Sunday). */
    weekday: number;
    /** 'HH:mm' (seconds, 'HH:mm:ss', are ignored). */
    start: string;
    /** 'HH:mm'; not after `start`: on the next day. */
    end: string;
    /** The span's colour, instead of its label's colour from the palette. */
    color?: string;
}

/**
 * A span of the day grid (an OTA window on a device, a person's shift): `start` and `end` as ISO date-times (or epoch
 * ms), in the row `row` (a person's or device's id). A span crossing the shown day's midnight shows its part of the day.
 */
export interface DaySpan {
    /** Tells the spans apart. */
    key: string | number;
    /** What the span is: its text, tooltip, colour and legend entry. */
    label: string;
    /** The id of the row (a `rows` entry) it belongs to. */
    row: string | number;
    /** ISO date-time ('2026-12-07T22:00:00+08:00') or epoch ms. */
    start: string | number;
    /** ISO date-time or epoch ms, after `start`. */
    end: string | number;
    /** The span's colour, instead of its label's colour from the palette. */
    color?: string;
}

/**
 * A time grid: 24 hour columns, and rows of days (`week`: Monday to Sunday, `WeekSpan`s) or of resources (`day`: the
 * people or devices of one day, `DaySpan`s). Spans are coloured by label from a fixed palette (the same label, the same
 * colour) unless they carry a colour; overlapping spans of one row stack in lanes, each whole; a span crossing
 * midnight shows on both days; each says its label and full time range in a tooltip; a legend lists the labels.
 */
export interface TimeGridSpec {
    /** 'week': Monday..Sunday × 24 hours; 'day': `rows` × the 24 hours of `day`. */
    kind: 'week' | 'day';
    /** The call answering the spans (default: none, the spans are read from the page's record). */
    source?: CallRef;
    /**
     * Where the spans are: a dotted path into `source`'s answer (default: the answer itself) or, without `source`,
     * into the record (default 'spans'; `'rota'`); or a function of the scope and the answer shaping the platform's
     * rows into spans (`WeekSpan`s for 'week', `DaySpan`s for 'day'). undefined from the function: still loading.
     */
    spans?: string | ((scope: Scope, answer?: unknown) => Array<WeekSpan | DaySpan> | undefined);
    /**
     * The day grid's rows in order, `{ id, label }` (the people on call, the devices): a dotted path into the answer
     * or record, or a function of the scope and the answer. Default: the spans' `row` ids in order of appearance.
     */
    rows?: string | ((scope: Scope, answer?: unknown) => Array<{ id: string | number; label: string }>);
    /** The day grid's day, 'YYYY-MM-DD' (default: today). */
    day?: Of<string>;
    /** Colours by label, before the palette (`{ 张三: '#1565c0' }`). */
    colors?: Record<string, string>;
    /** Said in place of the grid when there are no spans (default 暂无时段). */
    empty?: Of<string>;
    /** The legend of labels under the grid (default true). */
    legend?: boolean;
}

/** One block of a tab or page. */
export type Section =
    | {
          kind: 'fields';
          /** A title above the descriptions. */
          title?: string;
          /** Fields of the resource (or pairs), shown as descriptions of the record. */
          fields: Array<string | [string, FieldDefinition]>;
          /** Descriptions per line (default 2). */
          columns?: 1 | 2 | 3;
          /** Buttons beside the title (编辑). */
          actions?: Action[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
          /**
           * The record described is this call's answer (a product's current configuration), not the page's: the fields
           * and the actions see it as `record` (the page's stays in `scope.page`). Loading shows a bar, a failure its
           * words, and an answer of null `empty`, which sees the page's scope (the actions stay, e.g. the 编辑 that
           * writes the first one).
           */
          source?: CallRef;
          /** Said when the `source` call answers null. */
          empty?: {
              /** The text. */
              text: Of<string>;
              /** A quieter line under it. */
              hint?: Of<string>;
          };
      }
    | {
          kind: 'list';
          /** The list: its call, columns, filters and actions. */
          list: ListSpec;
          /** A title above the list. */
          title?: string;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    | {
          kind: 'chart';
          /** The chart's title. */
          title?: string;
          /** The chart. */
          chart: ChartSpec;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    | {
          kind: 'counters';
          /** A title above the figures. */
          title?: string;
          /** The call answering the figures (default: the page's record and loads). */
          call?: CallRef;
          /** The figures. */
          items: CounterSpec[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    | {
          kind: 'widget';
          /** A title above the widget. */
          title?: string;
          /** The widget's name in the widget registry. */
          widget: string;
          /** Props given to the widget, from the scope. */
          props?: (scope: Scope) => Record<string, unknown>;
          /** Buttons beside the title. */
          actions?: Action[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** A row of actions with an optional text (a debug page's 设置属性 / 调用服务 / 发布消息). */
    | {
          kind: 'actions';
          /** A title above the buttons. */
          title?: string;
          /** A text beside the buttons. */
          text?: Of<string>;
          /** The buttons. */
          actions: Action[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /**
     * Live rows from a call that answers server-sent events (text/event-stream), newest first, at most `max` kept;
     * the user may pause and clear. Each event's data is a JSON row shown in `columns`.
     */
    | {
          kind: 'stream';
          /** A title above the rows. */
          title?: string;
          /** The call answering server-sent events. */
          source: CallRef;
          /** The SSE event name carrying rows (default 'message'). */
          event?: string;
          /** The columns: fields by name or pairs. */
          columns: Array<string | [string, FieldDefinition]>;
          /** Rows kept, newest first (older ones drop). */
          max?: number;
          /** The text before any row arrives. */
          empty?: string;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** One of several groups of sections, chosen by a radio (or tabs) kept in the URL under `param`; first by default. */
    | {
          kind: 'switch';
          /** Accessible name of the radio group. */
          label: string;
          /** The query param holding the chosen option. */
          param: string;
          /** Radio buttons (default) or tabs. */
          input?: 'radio' | 'tabs';
          /** The groups of sections to choose from. */
          options: Array<{
              /** The option's URL value. */
              key: string;
              /** The option's text. */
              label: string;
              /** The sections shown while it is chosen. */
              sections: Section[];
          }>;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** A notice (an alert with its text) and optional actions, e.g. a filter naming what does not exist. */
    | {
          kind: 'notice';
          /** The notice's text. */
          text: Of<string>;
          /** The alert's colour (default info). */
          severity?: 'info' | 'warning' | 'error' | 'success';
          /** Buttons in the notice. */
          actions?: Action[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** Sections side by side (each takes an equal share, or `widths` in twelfths). */
    | {
          kind: 'row';
          /** The sections side by side. */
          sections: Section[];
          /** Each section's width in twelfths (default equal shares). */
          widths?: number[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** A message in place of content (a feature still to come): text and a hint, centred. */
    | {
          kind: 'note';
          /** A title above the text. */
          title?: string;
          /** The message. */
          text: Of<string>;
          /** A quieter line under it. */
          hint?: Of<string>;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /**
     * A Markdown document (help pages), loaded lazily by `load` (e.g. `() => import('../docs/help/x.md?raw')`) so its
     * text is not in the first screen's code; raw HTML in it is shown as text. A table of contents of its h2 / h3
     * (`toc`, default true) and a search box (`search`, default true; the words in `?q=`) stand beside it.
     */
    | {
          kind: 'markdown';
          /** A title above the document. */
          title?: string;
          /** Answers the document's text (a lazy import of a .md?raw file). */
          load: () => Promise<string | { default: string }>;
          /** A table of contents of its h2 / h3 (default true). */
          toc?: boolean;
          /** A search box, its words in `?q=` (default true). */
          search?: boolean;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /**
     * A record of its own, loaded from `source` (a device's shadow): `fields` of it as descriptions and `json` parts of
     * it pretty-printed under their labels, side by side as the width allows; `empty` in their place when `empty.when` holds for the answer. The actions
     * (beside the title, in both cases) see the answer as `scope.data.document`.
     */
    | {
          kind: 'document';
          /** A title above the document. */
          title?: string;
          /** The call answering the document. */
          source: CallRef;
          /** Fields of the answer shown as descriptions. */
          fields?: Array<string | [string, FieldDefinition]>;
          /** Parts of the answer shown pretty-printed under their labels. */
          json: Array<{
              /** The part's label. */
              label: string;
              /** Dotted path of the part in the answer. */
              path: string;
          }>;
          /** Said instead while `when` holds for the answer. */
          empty?: {
              /** Whether the answer counts as empty. */
              when: (answer: Row) => boolean;
              /** The text. */
              text: Of<string>;
              /** A quieter line under it. */
              hint?: Of<string>;
          };
          /** A button of this label that asks `source` again (what a device changes is not pushed to the page). */
          refresh?: string;
          /** Buttons beside the title; they see the answer as `scope.data.document`. */
          actions?: Action[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** A week × hour or day × resource grid of coloured time spans (`TimeGridSpec`), from the record or a call. */
    | {
          kind: 'timeGrid';
          /** A title above the grid. */
          title?: string;
          /** The grid: its kind, where its spans come from, its rows. */
          grid: TimeGridSpec;
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    /** Tabs inside a tab, kept in the query param `param` (absent: the first); each a column of sections. */
    | {
          kind: 'tabs';
          /** The query param holding the tab. */
          param: string;
          /** The tab set's accessible name. */
          label?: string;
          /** The tabs, each a column of sections. */
          tabs: TabSpec[];
          /** Shown only while this holds. */
          when?: (scope: Scope) => boolean;
      }
    | FormSection;

/**
 * A form on the page itself (not in a dialog): inputs filled from a call, and several buttons under them, each
 * submitting the values to its own call (保存草稿, 发布, 模拟运行), with its own schema and confirmation. A button with
 * `show` puts its answer under the form (a run's result or its error) instead of a toast.
 */
export interface FormSection {
    kind: 'form';
    /** A title above the form. */
    title?: string;
    /** The starting values' call (asked once shown); `defaults` make the values from its answer. */
    load?: CallRef;
    /** The starting values, from the scope and the `load` answer. */
    defaults?: (scope: Scope, loaded: unknown) => FormValues;
    /** The inputs: fields by name or pairs. */
    fields: Array<string | [string, FieldDefinition]>;
    /** The buttons under the inputs, each with its own call. */
    submits: FormSubmit[];
    /** A line under the title (what the form is for, its limits). */
    note?: Of<string>;
    /** Shown only while this holds. */
    when?: (scope: Scope) => boolean;
}

export interface FormSubmit {
    /** The button's text. */
    label: string;
    /** The call; its params see the form values in `scope.values`. */
    call: CallRef;
    /** Checked before the call (only this button's fields need be valid); the messages show under the inputs. */
    schema?: AnyObjectSchema;
    /** A confirmation asked before the call. */
    confirm?: Of<string>;
    /** Title of the confirmation (default 提示). */
    confirmTitle?: string;
    /** A toast after success (not with `show`). */
    success?: string;
    /** Said when the call fails without words of its own. */
    failure?: string;
    /** The right it needs (hidden without it), as an action's. */
    right?: string;
    /** The contained (main) button. */
    primary?: boolean;
    /** What reloads after success. */
    refresh?: Refresh;
    /** Puts the answer under the form: its severity, a title and a monospace body. */
    show?: (answer: unknown, scope: Scope) => FormResult;
}

export interface FormResult {
    /** The alert's colour. */
    severity: 'success' | 'info' | 'warning' | 'error';
    /** The alert's title. */
    title: string;
    /** Monospace text under it (a run's output or error). */
    body?: string;
}

export interface TabSpec {
    /** The URL value of the tab (a path segment or a query value). */
    key: string;
    /** The tab's text. */
    label: string;
    /** The tab exists only while this holds. */
    when?: (scope: Scope) => boolean;
    /** The tab's column of sections. */
    sections: Section[];
}

/**
 * A screen of the resource at its own route: an optional record loaded from the route, a header, tabs kept in
 * the URL, sections. The dashboard and project overview are pages without tabs.
 */
export interface PageSpec {
    /** Route, react-router style: '/devInstanceDetail/:productId/:deviceId/*', '/introduce'. */
    path: string;
    /** The page's title (or a function of the scope). */
    title: Of<string>;
    /** Breadcrumb back (the list the page belongs to): its text and where; the page's own crumb is `crumb` or the title. */
    back?: {
        /** The breadcrumb's text. */
        label: string;
        /** The route it goes back to. */
        to: Of<string>;
    };
    /** The page's own breadcrumb text (default: the title). */
    crumb?: string;
    /** The page's record, loaded from the route; its failure with `notFound` shows a not-found page. */
    record?: CallRef & {
        /** Shown when the platform says the record does not exist (404, or a message saying 不存在). */
        notFound?: Of<string>;
        /** Title of that notice (default `${label}不存在`). */
        notFoundTitle?: string;
        /** A reason the route names no record (a missing or malformed id): said instead of calling. */
        missing?: (scope: Scope) => string | undefined;
        /** Shape the answer into the scope's record. */
        map?: (answer: unknown) => Row;
        /** Said beside the progress bar while the record loads ('设备信息加载中…'). */
        loading?: string;
    };
    /** Further calls whose answers the sections see in `scope.data` (asked once the page's record is loaded). */
    load?: Record<string, CallRef>;
    /** A header above the tabs: title, status, fields and actions of the record. */
    header?: {
        /** The header's title from the scope (default: the page title). */
        title?: (scope: Scope) => string;
        /** A quieter line beside the title and status (the path of a nested record). */
        subtitle?: (scope: Scope) => string | undefined;
        /** Field holding the status chip's value (the field's choices give its colour). */
        status?: string;
        /** Fields of the record shown in the header. */
        fields?: Array<string | [string, FieldDefinition]>;
        /** Buttons at the header's right. */
        actions?: Action[];
    };
    /** The page's tabs, kept in the URL (`tabParam`). */
    tabs?: TabSpec[];
    /** Where the tab lives: a path segment after the route (default) or a query param; `indexBase` 1 makes query values the tab's 1-based position among all tabs (checkIdx). */
    tabParam?: {
        /** The query param holding the tab; absent: the path segment after the route. */
        query?: string;
        /** 1: the query value is the tab's 1-based position among all tabs. */
        indexBase?: 0 | 1;
        /** Tab shown when the URL names none or one that does not apply; a function reads the scope (?child=true). */
        fallback?: string | ((scope: Scope) => string | undefined);
        /** Choosing the fallback tab removes the param, so the first tab keeps a clean URL. */
        omitFallback?: boolean;
    };
    /** Sections of a page without tabs (an overview), or above the tabs. */
    sections?: Section[];
    /**
     * Choices at the top of the page kept in the URL query (product, then device): sections, tabs and actions read
     * them in `scope.query`. Select choices may come from calls whose params read the query.
     */
    params?: FilterSpec[];
    /** Outside the layout (sign-in pages). */
    noLayout?: boolean;
}

/** Where a resource sits in the side menu: label, icon, section and order live here; /api/menu says only what a user may see. */
export interface MenuSpec {
    /** Menu text (default: the resource label). */
    label?: string;
    /** The route the entry opens (default: the resource path). */
    to?: string;
    /** Parent entry's label ('设备接入'); none for a top-level entry. */
    section?: string;
    /** Position among the section's entries (lower first). */
    order?: number;
    /** An @mui/icons-material component (default: the resource's icon). */
    icon?: ComponentType;
    /** Further route prefixes that light this entry up (e.g. '/productDetail'). */
    related?: string[];
    /**
     * The right (menu id) a role needs to see the entry; GET /api/menu's `access` says which a role has. Default:
     * the id schemas/menu.ts gives the entry's route, else the resource's name.
     */
    right?: string;
}
