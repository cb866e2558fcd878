/**
 * `npm run new:resource -- <openapi tag | path prefix> [--name NAME] [--label 中文名] [--spec FILE] [--out DIR]`
 *
 * Scaffolds a resource from the contract (openapi.yaml): the definition (resources/NAME.tsx), its yup schema
 * (schemas/NAME.ts) and its msw test (tests/resources/NAME.test.tsx). Columns come from the list answer's rows,
 * filters from the list's query parameters, paging names from its PageNumber / PageSize parameters, the forms and the
 * yup rules (required, maxLength, minimum / maximum, pattern, enum, with Chinese messages) from the create and update
 * request bodies, the success rule from x-success-rule, the rights family and the menu entry from x-right. Existing
 * files are never overwritten. The result typechecks, lints and passes its own test as written: edit it from there.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { parse } from 'yaml';

type Json = Record<string, unknown>;
type Schema = Json & {
    type?: string | string[];
    properties?: Record<string, Schema>;
    items?: Schema;
    required?: string[];
    enum?: unknown[];
    maxLength?: number;
    minLength?: number;
    minimum?: number;
    maximum?: number;
    pattern?: string;
    format?: string;
    title?: string;
    example?: unknown;
};
interface Parameter {
    name: string;
    in: string;
    required?: boolean;
    schema?: Schema;
    description?: string;
}
interface Operation {
    method: 'get' | 'post' | 'put' | 'delete';
    path: string;
    operationId?: string;
    tags?: string[];
    parameters: Parameter[];
    body?: Schema;
    answer?: Schema;
    successRule?: string;
    right?: string;
}

const SUCCESS_RULES = ['code200', 'code0', 'returnCode1111', 'returnCode0'];
const METHODS = ['get', 'post', 'put', 'delete'] as const;

export interface ScaffoldOptions {
    /** An openapi tag, or a path prefix starting with '/'. */
    target: string;
    /** The contract (default: openapi.yaml of the repository). */
    spec?: string;
    /** The root the three files go under (default: the repository). */
    out?: string;
    /** The resource's code name (default: from the tag or the prefix). */
    name?: string;
    /** The Chinese label (default: the tag's x-displayName, else the name). */
    label?: string;
}

export interface ScaffoldResult {
    name: string;
    files: string[];
}

const repoRoot = path.resolve(import.meta.dirname, '..');

const camel = (words: string[]) =>
    words
        .filter(Boolean)
        .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
        .join('');
const words = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean);
const constName = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const lit = (v: unknown) => (typeof v === 'string' ? q(v) : JSON.stringify(v));

/** The contract with its local $refs resolved (cycles cut after a few levels). */
function resolver(doc: Json) {
    const at = (ref: string): unknown =>
        ref
            .replace(/^#\//, '')
            .split('/')
            .reduce<unknown>(
                (node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
                doc,
            );
    const resolve = (node: unknown, depth = 0): unknown => {
        if (depth > 12 || node === null || typeof node !== 'object') return node;
        if (Array.isArray(node)) return node.map((n) => resolve(n, depth + 1));
        const obj = node as Json;
        if (typeof obj.$ref === 'string') return resolve(at(obj.$ref), depth + 1);
        return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolve(v, depth + 1)]));
    };
    return resolve;
}

const typeOf = (s: Schema | undefined): string | undefined =>
    Array.isArray(s?.type) ? s.type.find((t) => t !== 'null') : s?.type;

/** The JSON answer's schema of an operation's 200. */
function answerOf(op: Json): Schema | undefined {
    const ok = (op.responses as Json | undefined)?.['200'] as Json | undefined;
    const content = ok?.content as Json | undefined;
    return (content?.['application/json'] as Json | undefined)?.schema as Schema | undefined;
}

function bodyOf(op: Json): Schema | undefined {
    const content = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    if (!content) return undefined;
    const first =
        content['application/x-www-form-urlencoded'] ?? content['multipart/form-data'] ?? content['application/json'];
    return first?.schema as Schema | undefined;
}

/** Where the rows and the total sit in a list answer: ['data.records', 'data.total'], or ['data']. */
function listShape(answer: Schema | undefined): { rows: Schema; read: string; total?: string } | undefined {
    const data = answer?.properties?.data;
    if (!data) return undefined;
    if (typeOf(data) === 'array' && data.items) return { rows: data.items, read: 'data' };
    for (const [key, prop] of Object.entries(data.properties ?? {})) {
        if (typeOf(prop) === 'array' && prop.items && typeOf(prop.items) === 'object') {
            const total = Object.entries(data.properties ?? {}).find(
                ([k, p]) => k !== key && typeOf(p) === 'integer' && /total|count/i.test(k),
            );
            return { rows: prop.items, read: `data.${key}`, total: total ? `data.${total[0]}` : undefined };
        }
    }
    return undefined;
}

const isPaging = (p: Parameter) => /^(pageNumber|pageNo|page|current)$/.test(p.name);
const isPageSize = (p: Parameter) => /^(pageSize|size|limit|perPage)$/.test(p.name);

function pick(ops: Operation[], method: string[], last: RegExp, exclude: Operation[] = []) {
    return ops.find(
        (o) => !exclude.includes(o) && method.includes(o.method) && last.test(o.path.split('/').pop() ?? ''),
    );
}

/** A value that satisfies a string field's rules, for the test's rows and forms. */
function sampleString(key: string, s: Schema, i: number, label: string): string {
    if (s.example !== undefined && i === 0) return String(s.example);
    if (s.enum?.length) return String(s.enum[i % s.enum.length]);
    const max = s.maxLength ?? 64;
    const candidates = [
        `${label}${i + 1}`,
        `${key}_${i + 1}`,
        `${key}${i + 1}`,
        `1.0.${i}`,
        `http://example.com/${key}${i + 1}`,
        `user${i + 1}@example.com`,
        `1380000000${i % 10}`,
        String(i + 1),
        'a'.repeat(64),
    ];
    if (s.example !== undefined) candidates.unshift(String(s.example));
    const re = s.pattern ? new RegExp(s.pattern) : undefined;
    const fit = candidates.find((c) => c.length <= max && (!re || re.test(c)) && c.length >= (s.minLength ?? 0));
    return fit ?? String(s.example ?? `${key}${i + 1}`);
}

function sampleValue(key: string, s: Schema, i: number, label: string): unknown {
    const t = typeOf(s);
    if (s.enum?.length) return s.enum[i % s.enum.length];
    if (t === 'integer' || t === 'number') {
        if (typeof s.example === 'number' && i === 0) return s.example;
        const min = s.minimum ?? 1;
        const max = s.maximum ?? min + 1000;
        return Math.min(max, min + i);
    }
    if (t === 'boolean') return i % 2 === 0;
    if (s.format === 'date-time' || /Time$/.test(key))
        return `2025-05-${String((i % 28) + 1).padStart(2, '0')} 09:00:00`;
    return sampleString(key, s, i, label);
}

interface FieldPlan {
    key: string;
    label: string;
    schema: Schema;
    kind: 'text' | 'longText' | 'number' | 'boolean' | 'select' | 'datetime';
    inRows: boolean;
    inForm: boolean;
    required: boolean;
    choices?: string;
}

function kindOf(key: string, s: Schema): FieldPlan['kind'] {
    const t = typeOf(s);
    if (s.enum?.length) return 'select';
    if (t === 'integer' || t === 'number') return 'number';
    if (t === 'boolean') return 'boolean';
    if (s.format === 'date-time' || s.format === 'date' || /Time$/.test(key)) return 'datetime';
    if ((s.maxLength ?? 0) > 200 || /^(remark|description|content)$/.test(key)) return 'longText';
    return 'text';
}

/** The yup rule of one form field, its messages in Chinese. */
function yupRule(f: FieldPlan): string {
    const s = f.schema;
    const t = typeOf(s);
    const parts: string[] = [];
    const isNumber = t === 'integer' || t === 'number';
    if (f.kind === 'boolean') return 'yup.boolean()';
    if (isNumber) {
        parts.push('yup.number()');
        parts.push(`.transform((value, raw) => (raw === '' || raw === null ? undefined : value))`);
        parts.push(`.typeError(${q(`${f.label}必须是数字`)})`);
        if (f.required) parts.push(`.required(${q(`请输入${f.label}`)})`);
        if (t === 'integer') parts.push(`.integer(${q(`${f.label}必须是整数`)})`);
        if (s.minimum !== undefined) parts.push(`.min(${s.minimum}, ${q(`${f.label}不能小于${s.minimum}`)})`);
        if (s.maximum !== undefined) parts.push(`.max(${s.maximum}, ${q(`${f.label}不能大于${s.maximum}`)})`);
    } else {
        parts.push('yup.string()');
        if (f.kind !== 'select') parts.push('.trim()');
        if (f.required) parts.push(`.required(${q(`${f.kind === 'select' ? '请选择' : '请输入'}${f.label}`)})`);
        if (s.maxLength !== undefined)
            parts.push(`.max(${s.maxLength}, ${q(`${f.label}不得超过${s.maxLength}个字符`)})`);
        if (s.pattern !== undefined)
            parts.push(`.matches(/${s.pattern.replace(/\//g, '\\/')}/, ${q(`${f.label}格式不正确`)})`);
    }
    if (s.enum?.length) {
        const values = [...s.enum.map(lit), ...(f.required ? [] : isNumber ? ['undefined'] : ["''"])];
        parts.push(`.oneOf([${values.join(', ')}], ${q(`请选择${f.label}`)})`);
    }
    return parts.join('');
}

function escapeRegExp(s: string) {
    return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const HAN = /[\u4e00-\u9fff]/;

/**
 * The console's own words for a property name: the Chinese `label` its definitions (resources/*.ts(x)) most often give a
 * field of that name (`createTime: { label: '创建时间'`), so a contract without `title`s still scaffolds Chinese
 * labels, the same the rest of the console shows (a label two fields agree on; ties go to the first met, files in
 * name order). Names every entity has (id, name, status, createTime, ...) take GENERIC_LABELS' words.
 */
export function consoleLabels(resourcesDir = path.join(repoRoot, 'resources')): Map<string, string> {
    const counts = new Map<string, Map<string, number>>();
    const files: string[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const full = path.join(dir, entry.name);
            if (entry.isDirectory()) walk(full);
            else if (/\.tsx?$/.test(entry.name)) files.push(full);
        }
    };
    if (existsSync(resourcesDir)) walk(resourcesDir);
    const field = /(?:^|[\s{,])([A-Za-z_]\w*)\s*:\s*\{\s*label\s*:\s*'([^'\n]{1,20})'/g;
    for (const file of files) {
        for (const m of readFileSync(file, 'utf8').matchAll(field)) {
            const [, key, label] = m;
            if (!HAN.test(label)) continue;
            const byLabel = counts.get(key) ?? new Map<string, number>();
            byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
            counts.set(key, byLabel);
        }
    }
    // Generic names first: a definition's own 规则名称 or 驱动ID says more than the name does.
    const out = new Map<string, string>(Object.entries(GENERIC_LABELS));
    for (const [key, byLabel] of counts) {
        if (out.has(key)) continue;
        let best = '';
        let n = 0;
        for (const [label, c] of byLabel) if (c > n) [best, n] = [label, c];
        // Two that agree are the console's word; one alone is, unless another definition says otherwise (host: SMTP
        // 服务器 and 设备IP/域名 are each one screen's own).
        if (n >= 2 || byLabel.size === 1) out.set(key, best);
    }
    return out;
}

/** The words of names every entity has, whatever the console's definitions call their own. */
const GENERIC_LABELS: Record<string, string> = {
    id: 'ID',
    name: '名称',
    type: '类型',
    kind: '类型',
    status: '状态',
    state: '状态',
    enabled: '启用',
    remark: '备注',
    description: '描述',
    createTime: '创建时间',
    updateTime: '更新时间',
    createdAt: '创建时间',
    updatedAt: '更新时间',
    projectCode: '项目编码',
    productKey: 'ProductKey',
    deviceName: '设备名称',
};

export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
    const specFile = path.resolve(options.spec ?? path.join(repoRoot, 'openapi.yaml'));
    const out = path.resolve(options.out ?? repoRoot);
    const doc = parse(readFileSync(specFile, 'utf8')) as Json;
    const resolve = resolver(doc);
    const target = options.target;
    const byPrefix = target.startsWith('/');

    const ops: Operation[] = [];
    for (const [p, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
        for (const method of METHODS) {
            const op = item[method] as Json | undefined;
            if (!op) continue;
            const tags = (op.tags as string[] | undefined) ?? [];
            if (byPrefix ? !p.startsWith(target) : !tags.includes(target)) continue;
            const shared = (item.parameters as unknown[] | undefined) ?? [];
            const params = resolve([...shared, ...((op.parameters as unknown[] | undefined) ?? [])]) as Parameter[];
            ops.push({
                method,
                path: p,
                operationId: op.operationId as string | undefined,
                tags,
                parameters: params,
                body: resolve(bodyOf(op)) as Schema | undefined,
                answer: resolve(answerOf(op)) as Schema | undefined,
                successRule: op['x-success-rule'] as string | undefined,
                right: op['x-right'] as string | undefined,
            });
        }
    }
    if (ops.length === 0) throw new Error(`openapi: no operation has the tag or path prefix "${target}"`);

    const list = ops.find((o) => o.method === 'get' && o.parameters.some(isPaging) && listShape(o.answer));
    if (!list) throw new Error(`openapi: "${target}" has no paged GET list (pageNumber / pageSize, rows in data)`);
    const shape = listShape(list.answer)!;
    const getOne = ops.find(
        (o) =>
            o !== list &&
            o.method === 'get' &&
            /^(get|detail|info|\{[^}]+\})$/.test(o.path.split('/').pop() ?? '') &&
            typeOf(o.answer?.properties?.data) === 'object',
    );
    const create = pick(ops, ['post', 'put'], /^(save|add|create|insert)$/);
    const update = pick(ops, ['post', 'put'], /^(update|edit|modify)$/, create ? [create] : []) ?? create;
    const remove =
        ops.find((o) => o.method === 'delete') ?? pick(ops, ['post'], /^(delete|remove|del)$/, [create!, update!]);
    const known = [list, getOne, create, update, remove].filter(Boolean);
    const customs = ops.filter((o) => !known.includes(o));

    const tagInfo = ((doc.tags as Json[] | undefined) ?? []).find((t) => t.name === target);
    const baseWords = byPrefix ? words(target).filter((w) => w !== 'api') : words(target);
    const name = options.name ?? `${camel(baseWords)}s`;
    const label = options.label ?? (tagInfo?.['x-displayName'] as string | undefined) ?? name;
    const routePath = name.replace(/s$/, '');
    const fileBase = name;
    const Const = constName(routePath);
    const schemaName = `${routePath}Schema`;

    const rule = (
        list.successRule && SUCCESS_RULES.includes(list.successRule) ? list.successRule : 'code200'
    ) as string;
    const rightFamily = [create, update, remove].map((o) => o?.right?.split('.')[0]).find(Boolean);

    // Fields: the rows' properties, then the form's own.
    const rowProps = shape.rows.properties ?? {};
    const form = create?.body;
    const formProps = form?.properties ?? {};
    const formRequired = new Set(form?.required ?? []);
    const idField =
        ['id', `${routePath}Id`].find((k) => k in rowProps) ?? Object.keys(rowProps).find((k) => /Id$/.test(k)) ?? 'id';
    const fields: FieldPlan[] = [];
    // The contract's title, else the console's own word for the name (consoleLabels), else the name itself.
    const consoleWords = consoleLabels();
    const titleOf = (key: string) => rowProps[key]?.title ?? formProps[key]?.title ?? consoleWords.get(key) ?? key;
    for (const key of new Set([...Object.keys(rowProps), ...Object.keys(formProps)])) {
        const schema = { ...(rowProps[key] ?? {}), ...(formProps[key] ?? {}) };
        const inForm = key in formProps && key !== idField;
        fields.push({
            key,
            label: titleOf(key),
            schema,
            kind: kindOf(key, schema),
            inRows: key in rowProps,
            inForm,
            required: inForm && formRequired.has(key),
            choices: schema.enum?.length ? `${Const}_${constName(key)}_CHOICES` : undefined,
        });
    }
    const nameField =
        fields.find((f) => /name$/i.test(f.key) && f.kind === 'text') ?? fields.find((f) => f.kind === 'text');
    const formFields = fields.filter((f) => f.inForm);

    // The list's filters: its query parameters besides paging.
    const filters = list.parameters.filter((p) => p.in === 'query' && !isPaging(p) && !isPageSize(p));
    const paging = [list.parameters.find(isPaging)!.name, list.parameters.find(isPageSize)?.name ?? 'pageSize'];

    const filesWritten: string[] = [];
    const targets = {
        definition: path.join(out, 'resources', `${fileBase}.tsx`),
        schema: path.join(out, 'schemas', `${fileBase}.ts`),
        test: path.join(out, 'tests', 'resources', `${fileBase}.test.tsx`),
    };
    for (const file of Object.values(targets)) {
        if (existsSync(file)) throw new Error(`${path.relative(process.cwd(), file)} exists: not overwritten`);
    }
    const rel = (from: string, to: string) => {
        const r = path.relative(path.dirname(from), to).split(path.sep).join('/');
        return r.startsWith('.') ? r : `./${r}`;
    };
    const engineTypes = rel(targets.definition, path.join(repoRoot, 'src/engine/types'));
    const schemaImport = rel(targets.definition, targets.schema.replace(/\.ts$/, ''));
    const generatedNote = `scaffolded by \`npm run new:resource -- ${target}\` from ${path.basename(specFile)}`;

    // schemas/NAME.ts
    const choiceLines = fields
        .filter((f) => f.choices)
        .map(
            (f) =>
                `/** ${f.label}: the contract's values; give each its Chinese name. */\nexport const ${f.choices} = [\n${f.schema
                    .enum!.map((v) => `    { id: ${lit(v)}, name: ${lit(String(v))} },`)
                    .join('\n')}\n];\n`,
        );
    const schemaSource = `import * as yup from 'yup';

/**
 * ${label}: the yup rules of its create and edit forms (${generatedNote}: required, maxLength, minimum / maximum,
 * pattern, enum). The messages are the console's words: make them SPEC.md's where it has them.
 */

${choiceLines.join('\n')}
export const ${schemaName} = yup.object({
${formFields.map((f) => `    ${f.key}: ${yupRule(f)},`).join('\n')}
});
`;

    // resources/NAME.tsx
    const fieldLines = fields.map((f) => {
        const parts = [`label: ${q(f.label)}`];
        if (f.kind !== 'text') parts.push(`type: ${q(f.kind === 'datetime' ? 'datetime' : f.kind)}`);
        if (f.choices) parts.push(`choices: ${f.choices}`);
        if (f.required) parts.push('required: true');
        if (f.inForm && f.schema.maxLength !== undefined) parts.push(`maxLength: ${f.schema.maxLength}`);
        if (!f.inForm) parts.push('readOnly: true');
        if (f.inForm && !f.inRows) parts.push(`views: ['create', 'edit']`);
        return `        ${f.key}: { ${parts.join(', ')} },`;
    });
    const columns = fields.filter((f) => f.inRows && f.kind !== 'longText').map((f) => q(f.key));
    const filterLines = filters.map((p, i) => {
        const field = fields.find((f) => f.key === p.name);
        const parts = [`source: ${q(p.name)}`, `label: ${q(field?.label ?? p.schema?.title ?? p.name)}`];
        if (p.schema?.enum?.length) {
            parts.push(`input: 'select'`);
            parts.push(
                `choices: ${field?.choices ?? `[${p.schema.enum.map((v) => `{ id: ${lit(v)}, name: ${lit(String(v))} }`).join(', ')}]`}`,
            );
        } else if (i === 0) parts.push('alwaysOn: true');
        return `            { ${parts.join(', ')} },`;
    });
    const idParam = (op: Operation | undefined) =>
        op?.parameters.find((p) => p.in === 'query' && p.required)?.name ?? idField;
    const call = (op: Operation, extra: string[] = []) => {
        const parts = [`${op.method}: ${q(op.path)}`, ...extra];
        if (op.successRule && op.successRule !== rule && SUCCESS_RULES.includes(op.successRule))
            parts.push(`success: ${q(op.successRule)}`);
        return `{ ${parts.join(', ')} }`;
    };
    const apiLines = [`        success: ${q(rule)},`, `        idField: ${q(idField)},`];
    apiLines.push(
        `        getList: ${call(list, [
            `paging: [${q(paging[0])}, ${q(paging[1])}]`,
            `read: ${q(shape.read)}`,
            ...(shape.total ? [`total: ${q(shape.total)}`] : []),
        ])},`,
    );
    if (getOne)
        apiLines.push(
            `        getOne: ${call(getOne, [`params: (r) => ({ ${idParam(getOne)}: r.id })`, `read: 'data'`])},`,
        );
    if (create) apiLines.push(`        create: ${call(create, [`read: 'data'`])},`);
    if (update) apiLines.push(`        update: ${call(update)},`);
    if (remove) apiLines.push(`        delete: ${call(remove, [`params: (r) => ({ ${idParam(remove)}: r.id })`])},`);
    if (customs.length) {
        apiLines.push('        custom: {');
        for (const op of customs) {
            const key = op.operationId ?? camel(words(op.path.split('/').pop() ?? 'call'));
            apiLines.push(`            ${key}: ${call(op)},`);
        }
        apiLines.push('        },');
    }
    const choiceImports = fields.filter((f) => f.choices).map((f) => f.choices!);
    const definitionSource = `import ListAltIcon from '@mui/icons-material/ListAlt';
import { ${[...choiceImports, schemaName].join(', ')} } from '${schemaImport}';
import { defineResource } from '${engineTypes}';

/**
 * ${label} (${generatedNote}): list with its filters, ${create ? 'create and edit in dialogs, ' : ''}${remove ? 'delete, ' : ''}and its
 * menu entry. Its \`api\` paths are checked against openapi.yaml by tsc. Edit freely: docs/adding-a-resource.md.
 */
export default defineResource({
    name: ${q(name)},
    label: ${q(label)},
    path: ${q(routePath)},
    icon: ListAltIcon,
    idField: ${q(idField)},
${nameField ? `    recordRepresentation: ${q(nameField.key)},\n` : ''}${
        rightFamily
            ? `    // x-right of its writes (${[create, update, remove]
                  .map((o) => o?.right)
                  .filter(Boolean)
                  .join(
                      ', ',
                  )}): 新建 / 编辑 / 删除 need ${rightFamily}.create / .edit / .delete.\n    rightFamily: ${q(rightFamily)},\n`
            : ''
    }    menu: { label: ${q(label)}, section: '设备接入', order: 99, icon: ListAltIcon },
    fields: {
${fieldLines.join('\n')}
    },
${create ? `    schema: ${schemaName},\n` : ''}    views: { show: false${create ? '' : ', create: false'}${update ? '' : ', edit: false'} },
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 50],
        columns: [${columns.join(', ')}],
        filters: [
${filterLines.join('\n')}
        ],
${create ? `        createInDialog: true,\n        createLabel: ${q(`新建${label}`)},\n` : ''}${update ? '        editInDialog: true,\n' : ''}${remove ? `        deleteConfirm: ${q(`确定删除该${label}吗？`)},\n` : ''}        empty: ${q(`暂无${label}`)},
    },
    messages: { created: '创建成功', updated: '修改成功', deleted: '删除成功' },
    api: {
${apiLines.join('\n')}
    },
});
`;

    // tests/resources/NAME.test.tsx
    const sampleRows = (n: number) =>
        Array.from({ length: n }, (_, i) =>
            Object.fromEntries(
                fields
                    .filter((f) => f.inRows)
                    .map((f) => [f.key, f.key === idField ? i + 1 : sampleValue(f.key, f.schema, i, f.label)]),
            ),
        );
    const rows = sampleRows(12);
    const envelope =
        rule === 'returnCode1111'
            ? `{ returnCode: '1111', returnMessage: 'success', data }`
            : rule === 'returnCode0'
              ? `{ returnCode: 0, returnMessage: 'success', data }`
              : rule === 'code0'
                ? `{ code: 0, msg: 'success', data }`
                : `{ code: 200, msg: 'success', data }`;
    const pageAnswer = shape.total
        ? (() => {
              const rowsKey = shape.read.split('.').slice(1).join('.');
              const totalKey = shape.total.split('.').slice(1).join('.');
              return `{ ${rowsKey}: rows.slice((n - 1) * size, n * size), ${totalKey}: rows.length }`;
          })()
        : 'rows.slice((n - 1) * size, n * size)';
    const firstName = nameField ? String(rows[0][nameField.key]) : undefined;
    const secondPageName = nameField ? String(rows[10][nameField.key]) : undefined;
    const filled = formFields.filter((f) => f.required);
    const newRecord = Object.fromEntries(
        filled.map((f) => [f.key, sampleValue(f.key, f.schema, f.kind === 'select' ? 0 : 20, f.label)]),
    );
    const fillLines = filled.map((f) => {
        const name = `/${escapeRegExp(f.label)}/`;
        const v = newRecord[f.key];
        if (f.kind === 'select') {
            return `        await chooseOption(within(dialog).getByRole('combobox', { name: ${name} }), ${q(String(v))});`;
        }
        if (f.kind === 'number') {
            return `        await userEvent.type(within(dialog).getByRole('spinbutton', { name: ${name} }), ${q(String(v))});`;
        }
        if (f.kind === 'boolean') return `        // ${f.label}: a switch, left as it is`;
        return `        await userEvent.type(within(dialog).getByRole('textbox', { name: ${name} }), ${q(String(v))});`;
    });
    const firstRequired = filled.find((f) => f.kind !== 'boolean');
    const requiredMessage = firstRequired
        ? `${firstRequired.kind === 'select' ? '请选择' : '请输入'}${firstRequired.label}`
        : undefined;
    const helpersImport = rel(targets.test, path.join(repoRoot, 'tests/resources/helpers'));
    const definitionImport = rel(targets.test, targets.definition.replace(/\.tsx$/, ''));
    const testSource = `import { fireEvent, screen, waitFor, within } from '@testing-library/react';
${create && filled.length ? "import userEvent from '@testing-library/user-event';\n" : ''}import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import definition from '${definitionImport}';
import { ${[
        ...(filled.some((f) => f.kind === 'select') && create ? ['chooseOption'] : []),
        'mswServer',
        'renderDefinitions',
    ].join(', ')} } from '${helpersImport}';

/**
 * ${label} against msw (${generatedNote}): the platform below answers as the contract says. Grow it with the
 * screens you add.
 */

type Row = Record<string, unknown>;

const SAMPLE: Row[] = ${JSON.stringify(rows, null, 4).replace(/\n/g, '\n')};

let rows: Row[] = [];
const lists: URLSearchParams[] = [];
const written: Array<{ path: string; body: Record<string, string> }> = [];

const answer = (data: unknown) => HttpResponse.json(${envelope});
const query = (request: Request) => new URL(request.url).searchParams;
const form = async (request: Request) =>
    Object.fromEntries([...(await request.formData()).entries()].map(([k, v]) => [k, String(v)]));

const handlers = () => [
    http.get('*${list.path}', ({ request }) => {
        const params = query(request);
        lists.push(params);
        const n = Number(params.get(${q(paging[0])}) ?? 1);
        const size = Number(params.get(${q(paging[1])}) ?? 10);
        return answer(${pageAnswer});
    }),
${
    getOne
        ? `    http.get('*${getOne.path}', ({ request }) =>
        answer(rows.find((r) => String(r.${idField}) === query(request).get(${q(idParam(getOne))})) ?? null),
    ),
`
        : ''
}${
        create
            ? `    http.${create.method}('*${create.path}', async ({ request }) => {
        const body = await form(request);
        written.push({ path: ${q(create.path)}, body });
        const record = { ...SAMPLE[0], ...body, ${idField}: rows.length + 100 };
        rows.unshift(record);
        return answer(record);
    }),
`
            : ''
    }${
        update && update !== create
            ? `    http.${update.method}('*${update.path}', async ({ request }) => {
        const body = await form(request);
        written.push({ path: ${q(update.path)}, body });
        return answer(body);
    }),
`
            : ''
    }${
        remove
            ? remove.method === 'delete' || remove.method === 'get'
                ? `    http.${remove.method}('*${remove.path}', ({ request }) => {
        const id = query(request).get(${q(idParam(remove))});
        written.push({ path: ${q(remove.path)}, body: { id: String(id) } });
        rows = rows.filter((r) => String(r.${idField}) !== id);
        return answer(null);
    }),
`
                : // A POST delete carries the id in its form body, as the data provider sends it.
                  `    http.${remove.method}('*${remove.path}', async ({ request }) => {
        const id = (await form(request))[${q(idParam(remove))}];
        written.push({ path: ${q(remove.path)}, body: { id: String(id) } });
        rows = rows.filter((r) => String(r.${idField}) !== id);
        return answer(null);
    }),
`
            : ''
    }];

beforeEach(() => {
    rows = SAMPLE.map((r) => ({ ...r }));
    lists.length = 0;
    written.length = 0;
    mswServer.use(...handlers());
});

const SLOW = { timeout: 15_000 };

describe('${label}', () => {
    it('lists the first page with its columns, asking with the contract\\'s paging names', async () => {
        renderDefinitions([definition], '/${routePath}');
${
    firstName
        ? `        expect(await screen.findByText(${q(firstName)}, undefined, SLOW)).toBeInTheDocument();
        expect(screen.queryByText(${q(secondPageName!)})).not.toBeInTheDocument();`
        : `        await screen.findByRole('table', undefined, SLOW);`
}
        const table = screen.getByRole('table');
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(1 + 10));
${columns
    .map((c) => {
        const f = fields.find((x) => q(x.key) === c)!;
        return `        expect(within(table).getByRole('columnheader', { name: ${q(f.label)} })).toBeInTheDocument();`;
    })
    .join('\n')}
        expect(lists.at(-1)?.get(${q(paging[0])})).toBe('1');
        expect(lists.at(-1)?.get(${q(paging[1])})).toBe('10');
    });
${
    create && firstName
        ? `
    it('refuses an empty form with the schema\\'s messages, then creates', async () => {
        renderDefinitions([definition], '/${routePath}');
        await screen.findByText(${q(firstName)}, undefined, SLOW);
        fireEvent.click(screen.getByRole('button', { name: ${q(`新建${label}`)} }));
        const dialog = await screen.findByRole('dialog', { name: ${q(`新建${label}`)} });
${
    requiredMessage
        ? `        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText(${q(requiredMessage)})).toBeInTheDocument();
        expect(written).toHaveLength(0);
`
        : ''
}${fillLines.join('\n')}
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功')).toBeInTheDocument();
        expect(written[0]).toMatchObject({ path: ${q(create.path)}, body: ${JSON.stringify(
            Object.fromEntries(Object.entries(newRecord).map(([k, v]) => [k, String(v)])),
        )} });
    });
`
        : ''
}${
        remove && firstName
            ? `
    it('deletes a row after its confirmation', async () => {
        renderDefinitions([definition], '/${routePath}');
        const cell = await screen.findByText(${q(firstName)}, undefined, SLOW);
        fireEvent.click(within(cell.closest('tr')!).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent(${q(`确定删除该${label}吗？`)});
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText(${q(firstName)})).not.toBeInTheDocument());
        expect(written).toContainEqual({ path: ${q(remove.path)}, body: { id: '1' } });
    });
`
            : ''
    }});
`;

    const write = async (file: string, text: string) => {
        const config = (await prettier.resolveConfig(path.join(repoRoot, 'resources', path.basename(file)))) ?? {};
        const pretty = await prettier.format(text, { ...config, filepath: file });
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, pretty, { flag: 'wx' });
        filesWritten.push(file);
    };
    await write(targets.schema, schemaSource);
    await write(targets.definition, definitionSource);
    await write(targets.test, testSource);
    return { name, files: filesWritten };
}

async function main(argv: string[]) {
    const args: Record<string, string> = {};
    const rest: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a.startsWith('--')) args[a.slice(2)] = argv[++i] ?? '';
        else rest.push(a);
    }
    if (rest.length !== 1) {
        console.error(
            'usage: npm run new:resource -- <openapi tag | /path/prefix> [--name NAME] [--label 中文名] [--spec openapi.yaml] [--out DIR]',
        );
        process.exit(2);
    }
    try {
        const result = await scaffold({
            target: rest[0],
            name: args.name,
            label: args.label,
            spec: args.spec,
            out: args.out,
        });
        const shown = result.files.map((f) => path.relative(process.cwd(), f));
        console.log(`wrote ${result.name}:\n${shown.map((f) => `  ${f}`).join('\n')}`);
        console.log(`next:
  1. read the definition: labels are the contract's titles, else the labels the console's definitions give the same
     names, else the names themselves; give the rest, the choices and messages their Chinese words (SPEC.md's where it has them), drop columns you do not want
  2. npx vitest run --project resources ${shown[2]}
  3. npx tsc --noEmit && npx eslint ${shown.join(' ')}
  4. docs/adding-a-resource.md: the vocabulary, for what the scaffold does not write (detail pages, actions)`);
    } catch (e) {
        console.error((e as Error).message);
        process.exit(1);
    }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
    void main(process.argv.slice(2));
}
