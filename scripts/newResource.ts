/**
 * `npm run new:resource -- <openapi tag | path prefix> [--name NAME] [--label 中文名] [--spec FILE] [--out DIR]`
 *
 * Scaffolds a resource from the contract (openapi.yaml): the definition (resources/NAME.tsx), its yup schema
 * (schemas/NAME.ts) and its msw test (tests/resources/NAME.test.tsx). Columns come from the list answer's rows,
 * filters from the list's query parameters, paging names, `read` and `total` from the list's parameters and envelope
 * (records / total, list, resultList / totalCount, a bare array), the forms and the yup rules from the create and
 * update request bodies (scripts/newResource/fields.ts and yupRules.ts: arrays of values and of objects, nested
 * objects, enums, formats, lengths, bounds, patterns, required, with Chinese messages), `body: 'json'` from an
 * application/json body, the success rule from x-success-rule, the rights family and the menu entry from x-right.
 * What it cannot map it says in a `// TODO(scaffold): ...` line of the definition and prints. Existing files are never
 * overwritten. The result typechecks, lints and passes its own test as written: edit it from there.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { parse } from 'yaml';
import {
    isPagingParam,
    resolver,
    typeOf,
    type BodyEncoding,
    type Json,
    type Operation,
    type Schema,
} from './newResource/contract';
import { definitionSource, filterLines, idParamOf } from './newResource/definitionSource';
import { NOT_A_COLUMN } from './newResource/definitionFields';
import { planFields, todoLine, todosOf, type FieldPlan, type Todo } from './newResource/fields';
import { editLoadOf, operationsOf, rolesOf, SUCCESS_RULES } from './newResource/operations';
import { testSource } from './newResource/testSource';
import { schemaObject } from './newResource/yupRules';

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
    /** What the scaffold could not map, as written in the definition (`// TODO(scaffold): ...`). */
    todos: string[];
}

const repoRoot = path.resolve(import.meta.dirname, '..');

const camel = (words: string[]) =>
    words
        .filter(Boolean)
        .map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1)))
        .join('');
const words = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean);
const constName = (s: string) =>
    s
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/[^A-Za-z0-9_]/g, '_')
        .toUpperCase();
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const lit = (v: unknown) => (typeof v === 'string' ? q(v) : JSON.stringify(v));

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

/** The enum values of a choices field: its own, an array's items', a row cell's. */
const enumOf = (f: FieldPlan) => (f.kind === 'checkboxes' ? f.schema.items?.enum : f.schema.enum) ?? [];

function choiceConstants(fields: FieldPlan[]): string[] {
    const all = (list: FieldPlan[]): FieldPlan[] => list.flatMap((f) => [f, ...all(f.rowFields ?? [])]);
    const seen = new Set<string>();
    return all(fields)
        .filter((f) => f.choices && !seen.has(f.choices) && seen.add(f.choices))
        .map(
            (f) =>
                `/** ${f.label}: the contract's values; give each its Chinese name. */\nexport const ${f.choices} = [\n${enumOf(
                    f,
                )
                    .map((v) => `    { id: ${lit(v)}, name: ${lit(String(v))} },`)
                    .join('\n')}\n];\n`,
        );
}

/** schemas/NAME.ts: the choices constants and the yup object of the form's fields. */
function schemaFile(label: string, note: string, fields: FieldPlan[], schemaName: string, encoding: BodyEncoding) {
    return `import * as yup from 'yup';

/**
 * ${label}: the yup rules of its create and edit forms (${note}: required, min / max length, minimum /
 * maximum, pattern, enum, formats, item counts). The messages are the console's words: make them SPEC.md's where it
 * has them.
 */

${choiceConstants(fields).join('\n')}
export const ${schemaName} = yup.object({
${schemaObject(
    fields.filter((f) => f.inForm),
    encoding,
)}
});
`;
}

/** The id field of the rows: id, <entity>Id, else the first name ending in Id. */
const idFieldOf = (rowProps: Record<string, Schema>, routePath: string) =>
    ['id', `${routePath}Id`].find((k) => k in rowProps) ?? Object.keys(rowProps).find((k) => /Id$/.test(k)) ?? 'id';

export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
    const specFile = path.resolve(options.spec ?? path.join(repoRoot, 'openapi.yaml'));
    const out = path.resolve(options.out ?? repoRoot);
    const doc = parse(readFileSync(specFile, 'utf8')) as Json;
    const target = options.target;
    const ops = operationsOf(doc, resolver(doc), target);
    if (ops.length === 0) throw new Error(`openapi: no operation has the tag or path prefix "${target}"`);
    const roles = rolesOf(ops, target);
    const { list, shape, create, update } = roles;

    const tagInfo = ((doc.tags as Json[] | undefined) ?? []).find((t) => t.name === target);
    const baseWords = target.startsWith('/') ? words(target).filter((w) => w !== 'api') : words(target);
    const name = options.name ?? `${camel(baseWords)}s`;
    const label = options.label ?? (tagInfo?.['x-displayName'] as string | undefined) ?? name;
    const routePath = name.replace(/s$/, '');
    const Const = constName(routePath);
    const schemaName = `${routePath}Schema`;
    const rule = list.successRule && SUCCESS_RULES.includes(list.successRule) ? list.successRule : 'code200';
    const rightFamily = [create, update, roles.remove].map((o) => o?.right?.split('.')[0]).find(Boolean);

    // Fields: the rows' properties, then the form's own (create's body, else update's).
    const rowProps = shape.rows.properties ?? {};
    const form = create?.body ?? update?.body;
    const formOp = create?.body ? create : update;
    const idField = idFieldOf(rowProps, routePath);
    // The contract's title, else the console's own word for the name (consoleLabels), else the name itself.
    const consoleWords = consoleLabels();
    const fields = planFields({
        rowProps,
        formProps: form?.properties ?? {},
        formRequired: new Set(form?.required ?? []),
        idField,
        titleOf: (key, s) => s.title ?? rowProps[key]?.title ?? consoleWords.get(key) ?? key,
        choicesName: (key) => `${Const}_${constName(key)}_CHOICES`,
    });
    const whereOf = (f: FieldPlan) =>
        f.inForm && formOp
            ? `${formOp.method.toUpperCase()} ${formOp.path} body property ${f.key}`
            : `GET ${list.path} rows property ${f.key}`;
    const callTodos = callNotes(ops);
    const todos: Todo[] = [...callTodos];
    const nameField =
        fields.find((f) => /name$/i.test(f.key) && f.kind === 'text') ?? fields.find((f) => f.kind === 'text');
    const encoding: BodyEncoding = formOp?.bodyEncoding === 'json' ? 'json' : 'form';

    const targets = {
        definition: path.join(out, 'resources', `${name}.tsx`),
        schema: path.join(out, 'schemas', `${name}.ts`),
        test: path.join(out, 'tests', 'resources', `${name}.test.tsx`),
    };
    for (const file of Object.values(targets)) {
        if (existsSync(file)) throw new Error(`${path.relative(process.cwd(), file)} exists: not overwritten`);
    }
    const rel = (from: string, to: string) => {
        const r = path.relative(path.dirname(from), to).split(path.sep).join('/');
        return r.startsWith('.') ? r : `./${r}`;
    };
    const generatedNote = `scaffolded by \`npm run new:resource -- ${target}\` from ${path.basename(specFile)}`;

    const schemaSource = schemaFile(label, generatedNote, fields, schemaName, encoding);

    // resources/NAME.tsx
    const filterParams = list.parameters.filter((p) => p.in === 'query' && !isPagingParam(p));
    const context = {
        name,
        label,
        routePath,
        idField,
        rule,
        rightFamily,
        roles,
        fields,
        nameField,
        editLoad: editLoadOf(shape.rows, update?.body ?? form, roles.getOne, idField),
        schemaName,
        schemaImport: rel(targets.definition, targets.schema.replace(/\.ts$/, '')),
        engineTypes: rel(targets.definition, path.join(repoRoot, 'src/engine/types')),
        generatedNote,
        todos,
        callTodos,
        whereOf,
    };
    const filters = filterLines(context, filterParams);
    const definition = definitionSource(context, filters);
    // tests/resources/NAME.test.tsx
    const test = testSource({
        ...context,
        ...roles,
        columns: fields.filter((f) => f.inRows && !NOT_A_COLUMN.has(f.kind)),
        idParam: (op) => idParamOf(op, idField),
        definitionImport: rel(targets.test, targets.definition.replace(/\.tsx$/, '')),
        helpersImport: rel(targets.test, path.join(repoRoot, 'tests/resources/helpers')),
    });

    const filesWritten: string[] = [];
    const write = async (file: string, text: string) => {
        const pretty = await formatted(text, file);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, pretty, { flag: 'wx' });
        filesWritten.push(file);
    };
    await write(targets.schema, schemaSource);
    await write(targets.definition, definition);
    await write(targets.test, test);
    const allTodos = [...todosOf(fields, whereOf), ...todos].map(todoLine);
    return { name, files: filesWritten, todos: allTodos };
}

/**
 * The text as prettier leaves it, formatted until a pass changes nothing: one pass over a long yup chain can leave a
 * layout the next pass changes, and `prettier --check` (npm run lint) would refuse the file as written.
 */
export async function formatted(text: string, file: string): Promise<string> {
    const config = (await prettier.resolveConfig(path.join(repoRoot, 'resources', path.basename(file)))) ?? {};
    let current = text;
    for (let pass = 0; pass < 3; pass++) {
        const next = await prettier.format(current, { ...config, filepath: file });
        if (next === current) break;
        current = next;
    }
    return current;
}

/** Calls whose request the api block cannot say: a body that is one of several shapes, a body the provider lacks. */
function callNotes(ops: Operation[]): Todo[] {
    const notes: Todo[] = [];
    for (const op of ops) {
        const where = `${op.method.toUpperCase()} ${op.path}`;
        if (op.body?.oneOf || op.body?.anyOf)
            notes.push({
                where,
                what: 'the request body is one of several shapes: its form and params are left to you',
            });
        if (op.body && typeOf(op.body) === 'array')
            notes.push({ where, what: 'the request body is an array: send it through params ({ ... }) yourself' });
    }
    return notes;
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
        if (result.todos.length)
            console.log(
                `not mapped (TODO(scaffold) in the definition):\n${result.todos.map((t) => `  ${t}`).join('\n')}`,
            );
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
