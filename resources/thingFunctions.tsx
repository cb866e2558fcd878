import * as yup from 'yup';
import AddIcon from '@mui/icons-material/Add';
import DataObjectIcon from '@mui/icons-material/DataObject';
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import FileUploadIcon from '@mui/icons-material/FileUpload';
import LibraryAddIcon from '@mui/icons-material/LibraryAdd';
import {
    defineResource,
    type Action,
    type FieldDefinition,
    type Row,
    type Scope,
    type Section,
} from '../src/engine/types';
import { thingFunctionSchema, type ThingModel } from '../schemas/thingModel';
import { emptyFunction, fromFunction, functionFormSchema } from '../src/components/thingModel/form';
import {
    ACCESS_MODE_LABELS,
    CALL_TYPE_LABELS,
    EVENT_TYPE_LABELS,
    dataTypeLabel,
    describeFunction,
    functionMode,
    type ThingFunction,
    type Unit,
} from '../src/components/thingModel/model';

const choicesOf = (labels: Record<string, string>) => Object.entries(labels).map(([id, name]) => ({ id, name }));

const FUNCTION_TYPES = [
    { id: 'property', name: '属性', color: 'primary' as const },
    { id: 'event', name: '事件', color: 'warning' as const },
    { id: 'service', name: '服务', color: 'success' as const },
];

const typeIs =
    (...types: string[]) =>
    (v: Record<string, unknown>) =>
        types.includes(String(v.type));

/** The inputs of one function: the data type and the params are the `dataTypeSpec` input widget. */
const FIELDS = {
    type: {
        label: '功能类型',
        type: 'status',
        input: 'radio',
        choices: FUNCTION_TYPES,
        required: true,
        // A function keeps its type: the platform keys its topics and data by it.
        perView: { edit: { locked: true } },
    },
    name: {
        label: '功能名称',
        required: true,
        maxLength: 30,
        render: (r) => (r.standard ? `${String(r.name ?? '')}（标准）` : String(r.name ?? '')),
    },
    identifier: { label: '标识符', required: true, maxLength: 50 },
    dataType: {
        label: '数据类型',
        input: 'widget',
        widget: 'dataTypeSpec',
        required: true,
        visibleWhen: typeIs('property'),
    },
    accessMode: {
        label: '读写类型',
        type: 'select',
        input: 'radio',
        choices: choicesOf(ACCESS_MODE_LABELS),
        required: true,
        visibleWhen: typeIs('property'),
    },
    eventType: {
        label: '事件类型',
        type: 'select',
        input: 'radio',
        choices: choicesOf(EVENT_TYPE_LABELS),
        required: true,
        visibleWhen: typeIs('event'),
    },
    callType: {
        label: '调用方式',
        type: 'select',
        input: 'radio',
        choices: choicesOf(CALL_TYPE_LABELS),
        required: true,
        visibleWhen: typeIs('service'),
    },
    inputData: {
        label: '输入参数',
        input: 'widget',
        widget: 'dataTypeSpec',
        widgetProps: { params: true },
        visibleWhen: typeIs('service'),
    },
    outputData: {
        label: '输出参数',
        input: 'widget',
        widget: 'dataTypeSpec',
        widgetProps: { params: true },
        visibleWhen: typeIs('event', 'service'),
    },
    description: { label: '描述', type: 'longText', input: 'textarea', maxLength: 100 },
} satisfies Record<string, FieldDefinition>;

const FORM_FIELDS = Object.entries(FIELDS) as Array<[string, FieldDefinition]>;
const productIdOf = ({ record }: Scope) => record.productId;
const CHANGED = ['thingFunctions', 'topics'];
/** The platform refuses a clashing identifier with 标识符已存在: said under that input. */
const identifierError = (message: string) => (/^标识符/.test(message) ? 'identifier' : undefined);

/** What a function's columns show beside its own fields (数据类型, 数据定义 with unit names, 读写类型 / ...). */
const COLUMNS: Array<string | [string, FieldDefinition]> = [
    'type',
    'name',
    'identifier',
    [
        'dataTypeName',
        { label: '数据类型', render: (r) => (r.type === 'property' ? dataTypeLabel(fn(r).dataType?.type) : '-') },
    ],
    ['definition', { label: '数据定义' }],
    ['mode', { label: '读写类型 / 事件类型 / 调用方式', render: (r) => functionMode(fn(r)) }],
];

const fn = (r: Row) => r as unknown as ThingFunction;

const SECTIONS = [
    ['properties', '属性'],
    ['events', '事件'],
    ['services', '服务'],
] as const;

/** Parses a thing-model file, or says in Chinese why it is not one. */
export function parseThingModel(text: string): { value?: ThingModel; error?: string } {
    let raw: unknown;
    try {
        raw = JSON.parse(text);
    } catch {
        return { error: '文件不是有效的 JSON，请检查文件内容' };
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: '文件内容不是物模型对象' };
    const obj = raw as Record<string, unknown>;
    if (!SECTIONS.some(([key]) => key in obj))
        return { error: '文件中没有 properties、events 或 services，不是物模型文件' };
    for (const [key, label] of SECTIONS) {
        if (key in obj && !Array.isArray(obj[key])) return { error: `物模型的 ${key}（${label}）必须是数组` };
    }
    return {
        value: {
            ...obj,
            properties: (obj.properties as ThingModel['properties']) ?? [],
            events: (obj.events as ThingModel['events']) ?? [],
            services: (obj.services as ThingModel['services']) ?? [],
        },
    };
}

/** 导入将替换当前物模型: how many of each kind the product has now (the page's `functions`) and the file has. */
function importPreview(value: unknown, { record, data }: Scope): string {
    const model = value as ThingModel;
    const current = Array.isArray(data?.functions) ? (data.functions as Row[]) : [];
    const now = { properties: 'property', events: 'event', services: 'service' } as const;
    const counts = (count: (key: (typeof SECTIONS)[number][0]) => number) =>
        SECTIONS.map(([key, label]) => `${label} ${count(key)} 个`).join('、');
    const text =
        `导入将替换当前物模型：现有的 ${counts((k) => current.filter((f) => f.type === now[k]).length)} ` +
        `将被删除，替换为文件中的 ${counts((k) => (Array.isArray(model[k]) ? model[k].length : 0))}。`;
    const fileKey = model.profile?.productKey;
    return fileKey && record.productKey && fileKey !== record.productKey
        ? `${text}该文件导出自另一产品（ProductKey: ${fileKey}）。`
        : text;
}

const TOOLBAR: Action[] = [
    {
        kind: 'form',
        label: '添加自定义功能',
        right: 'product.edit',
        icon: AddIcon,
        variant: 'contained',
        fields: FORM_FIELDS,
        schema: functionFormSchema,
        defaults: (scope) => ({ ...emptyFunction(), productId: productIdOf(scope) }),
        // The schema hands back the platform's shape of the function.
        submit: { resource: 'thingFunctions', call: 'create', params: ({ values }) => values ?? {} },
        success: '添加成功',
        failure: '添加失败',
        refresh: CHANGED,
        errorField: identifierError,
    },
    {
        kind: 'form',
        label: '添加标准功能',
        right: 'product.edit',
        icon: LibraryAddIcon,
        variant: 'outlined',
        width: 'md',
        fields: [
            [
                'picked',
                {
                    label: '标准功能',
                    input: 'picker',
                    picker: {
                        source: {
                            resource: 'thingFunctions',
                            call: 'standard',
                            params: ({ record }) => ({ categoryId: record.categoryId }),
                        },
                        columns: [
                            ['type', { label: '功能类型', type: 'select', choices: FUNCTION_TYPES }],
                            ['name', { label: '功能名称' }],
                            ['identifier', { label: '标识符' }],
                            ['definition', { label: '数据定义', render: (r) => describeFunction(fn(r)) }],
                        ],
                        rowId: 'identifier',
                        keepRows: true,
                        perPage: 100,
                        disabled: (row, { data }) =>
                            Array.isArray(data?.functions) &&
                            (data.functions as Row[]).some((f) => f.identifier === row.identifier)
                                ? '已添加'
                                : false,
                        empty: '该分类暂无标准功能',
                    },
                },
            ],
        ],
        schema: yup.object({ picked: yup.array().min(1, '请选择标准功能').required('请选择标准功能') }),
        note: ({ record }) =>
            record.categoryId === undefined || record.categoryId === null || record.categoryId === ''
                ? '该产品未选择所属分类，暂无标准功能'
                : '',
        submit: {
            resource: 'thingFunctions',
            call: 'create',
            each: ({ record, values }) =>
                ((values?.picked ?? []) as Row[]).map((f) => ({
                    ...f,
                    id: undefined,
                    productId: record.productId,
                    standard: true,
                })),
            eachName: (f) => `${String(f.name)}（${String(f.identifier)}）`,
        },
        submitLabel: '添加',
        success: (answer) => `已添加 ${Array.isArray(answer) ? answer.length : 0} 个标准功能`,
        failure: '添加失败',
        refresh: CHANGED,
    },
    {
        kind: 'upload',
        label: '导入物模型',
        right: 'product.edit',
        icon: FileUploadIcon,
        variant: 'outlined',
        call: {
            resource: 'thingFunctions',
            call: 'import',
            params: ({ record, values }) => ({ productId: record.productId, thingModel: values?.thingModel }),
        },
        fileField: 'thingModel',
        accept: ['json'],
        parse: parseThingModel,
        preview: importPreview,
        note: '选择物模型 JSON 文件（可由“导出物模型”得到）。导入会替换该产品当前的全部功能定义。',
        submitLabel: '确认导入',
        success: '导入成功',
        failure: '导入失败',
        refresh: CHANGED,
    },
    {
        kind: 'download',
        label: '导出物模型',
        icon: FileDownloadIcon,
        variant: 'outlined',
        call: { resource: 'thingFunctions', call: 'export', params: ({ record }) => ({ productId: record.productId }) },
        saveAs: ({ record }) => `${String(record.productKey ?? record.productId)}-thing-model.json`,
        failure: '导出失败',
    },
    {
        kind: 'widget',
        label: '查看物模型',
        icon: DataObjectIcon,
        variant: 'outlined',
        title: '查看物模型（TSL）',
        widget: 'thingModelTsl',
        width: 'md',
        props: ({ record }) => ({ productId: record.productId }),
    },
];

const ROW_ACTIONS: Action[] = [
    {
        kind: 'form',
        label: '编辑',
        right: 'product.edit',
        title: '编辑功能',
        ariaLabel: ({ record }) => `编辑 ${String(record.identifier)}`,
        mode: 'edit',
        fields: FORM_FIELDS,
        schema: functionFormSchema,
        defaults: ({ record }) => ({ ...fromFunction(fn(record)), productId: record.productId }),
        submit: { resource: 'thingFunctions', call: 'update', params: ({ values }) => values ?? {} },
        success: '修改成功',
        failure: '修改失败',
        refresh: CHANGED,
        errorField: identifierError,
    },
    {
        kind: 'call',
        label: '删除',
        right: 'product.edit',
        color: 'error',
        ariaLabel: ({ record }) => `删除 ${String(record.identifier)}`,
        call: { resource: 'thingFunctions', call: 'delete' },
        confirmTitle: '删除功能',
        confirm: ({ record }) => `确认删除功能“${String(record.name)}（${String(record.identifier)}）”吗？`,
        success: '删除成功',
        failure: '删除失败',
        refresh: CHANGED,
    },
];

/**
 * The 功能定义 tab of a product: its functions filtered by type, with add (custom or standard), import, export, the
 * TSL view, and edit / delete per row. The page loads `units` and `functions` (see `functionLoads`).
 */
export function functionSections(): Section[] {
    return [
        {
            kind: 'list',
            list: {
                source: {
                    resource: 'thingFunctions',
                    call: 'getList',
                    params: (scope) => ({ productId: productIdOf(scope) }),
                },
                columns: COLUMNS,
                label: '功能定义',
                urlPrefix: 'fn',
                perPage: 10,
                perPageOptions: [10, 20, 30, 40],
                filters: [
                    {
                        source: 'type',
                        label: '功能类型',
                        input: 'tabs',
                        choices: FUNCTION_TYPES.map(({ id, name }) => ({ id, name })),
                    },
                ],
                toolbar: TOOLBAR,
                rowActions: ROW_ACTIONS,
                // 数据定义 names units as the platform's unit list does (摄氏度 / °C).
                map: (row, { data }) => ({
                    ...row,
                    definition: describeFunction(fn(row), Array.isArray(data?.units) ? (data.units as Unit[]) : []),
                }),
                empty: { text: '暂无功能定义，请添加自定义功能或标准功能' },
            },
        },
    ];
}

/** The calls the 功能定义 tab reads from its page: the unit names and the product's whole model (已添加, import). */
export function functionLoads(productId: (scope: Scope) => unknown) {
    return {
        units: { resource: 'thingFunctions', call: 'units' },
        functions: {
            resource: 'thingFunctions',
            call: 'all',
            params: (scope: Scope) => ({ productId: productId(scope) }),
        },
    };
}

/**
 * The functions (properties, events, services) of one product's thing model. Hidden: the product detail's
 * 功能定义 tab (functionSections) is its only screen, so no generated views.
 */
export default defineResource({
    name: 'thingFunctions',
    label: '物模型功能',
    hidden: true,
    idField: 'id',
    fields: FIELDS,
    schema: thingFunctionSchema,
    views: { list: false, show: false, edit: false, create: false },
    api: {
        success: 'code200',
        idField: 'id',
        getList: {
            get: '/api/function/list',
            paging: ['pageNumber', 'pageSize'],
            filters: { productId: 'productId', type: 'type' },
            read: 'data.records',
            total: 'data.total',
        },
        getOne: { get: '/api/function/get', params: (input) => ({ id: input.id }), read: 'data' },
        create: {
            post: '/api/function/save',
            body: 'json',
            params: (input) => input.data as Record<string, unknown>,
            read: 'data',
        },
        update: {
            post: '/api/function/save',
            body: 'json',
            params: (input) => ({ ...(input.data as Record<string, unknown>), id: input.id }),
            read: 'data',
        },
        delete: { delete: '/api/function/delete', params: (input) => ({ id: input.id }) },
        custom: {
            /** Every function of a product, unpaged (the platform's largest page). */
            all: {
                get: '/api/function/list',
                params: ({ productId }) => ({ productId, pageNumber: 1, pageSize: 1000 }),
                read: 'data.records',
            },
            dataTypes: { get: '/api/function/data-types', read: 'data' },
            units: { get: '/api/function/units', read: 'data' },
            // Standard functions carry no id of their own: their identifier is one.
            standard: { get: '/api/function/standard', read: 'data', transform: (r) => ({ ...r, id: r.identifier }) },
            import: { post: '/api/function/import', body: 'json', read: 'data' },
            export: { get: '/api/function/export', read: 'data' },
        },
    },
});
