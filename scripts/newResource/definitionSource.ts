/**
 * The definition's text (resources/NAME.tsx): fields, list, filters, the `api` block with paging, `read`, `total` and
 * each call's body encoding, how editing loads its record, and every TODO(scaffold) note where it applies.
 */
import { typeOf, type Operation, type Parameter } from './contract';
import { NOT_A_COLUMN, fieldLine } from './definitionFields';
import { nonNull, todoLine, type FieldPlan, type Todo } from './fields';
import type { EditLoad, Roles } from './operations';
import { SUCCESS_RULES } from './operations';

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const lit = (v: unknown) => (typeof v === 'string' ? q(v) : JSON.stringify(v));
const camel = (words: string[]) =>
    words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() : w.charAt(0).toUpperCase()) + w.slice(1)).join('');
const words = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean);

export interface DefinitionContext {
    name: string;
    label: string;
    routePath: string;
    idField: string;
    rule: string;
    rightFamily?: string;
    roles: Roles;
    fields: FieldPlan[];
    nameField?: FieldPlan;
    editLoad: EditLoad;
    schemaName: string;
    schemaImport: string;
    engineTypes: string;
    generatedNote: string;
    /** Every note printed; filterLines and the edit note add theirs where they write them. */
    todos: Todo[];
    /** Notes of the calls (request bodies no form says), written above the api block. */
    callTodos: Todo[];
    /** Where the contract says a field (`POST /api/x/save body property name`), for its notes. */
    whereOf: (f: FieldPlan) => string;
}

/** The id parameter of a call: its required query parameter, else the id field. */
export const idParamOf = (op: Operation | undefined, idField: string) =>
    op?.parameters.find((p) => p.in === 'query' && p.required)?.name ?? idField;

/** One call of the api block: method and path, its body encoding when not the method's default, its own success rule. */
export function callLine(op: Operation, rule: string, extra: string[] = []): string {
    const parts = [`${op.method}: ${q(op.path)}`];
    if (op.bodyEncoding === 'json' || op.bodyEncoding === 'file') parts.push(`body: ${q(op.bodyEncoding)}`);
    parts.push(...extra);
    if (op.successRule && op.successRule !== rule && SUCCESS_RULES.includes(op.successRule))
        parts.push(`success: ${q(op.successRule)}`);
    return `{ ${parts.join(', ')} }`;
}

/** getList: the contract's paging names, where the rows and the total sit in the answer. */
export function listCall(c: Pick<DefinitionContext, 'roles' | 'rule'>): string {
    const { list, paging, shape } = c.roles;
    return callLine(list, c.rule, [
        ...(paging ? [`paging: [${q(paging[0])}, ${q(paging[1])}]`] : []),
        `read: ${q(shape.read)}`,
        ...(shape.total ? [`total: ${q(shape.total)}`] : []),
    ]);
}

export const customName = (op: Operation) => op.operationId ?? camel(words(op.path.split('/').pop() ?? 'call'));

function apiLines(c: DefinitionContext): string[] {
    const { getOne, create, update, remove, customs } = c.roles;
    const lines = [`        success: ${q(c.rule)},`, `        idField: ${q(c.idField)},`];
    lines.push(`        getList: ${listCall(c)},`);
    const byId = (op: Operation) => `params: (r) => ({ ${idParamOf(op, c.idField)}: r.id })`;
    if (getOne) lines.push(`        getOne: ${callLine(getOne, c.rule, [byId(getOne), `read: 'data'`])},`);
    if (create) lines.push(`        create: ${callLine(create, c.rule, [`read: 'data'`])},`);
    if (update) lines.push(`        update: ${callLine(update, c.rule)},`);
    if (remove) lines.push(`        delete: ${callLine(remove, c.rule, [byId(remove)])},`);
    if (customs.length) {
        lines.push('        custom: {');
        for (const op of customs) lines.push(`            ${customName(op)}: ${callLine(op, c.rule)},`);
        lines.push('        },');
    }
    return lines;
}

/** The list's filters: its query parameters besides paging; an enum is a select, an array is left with a note. */
export function filterLines(c: Pick<DefinitionContext, 'fields' | 'todos' | 'roles'>, params: Parameter[]): string[] {
    const out: string[] = [];
    params.forEach((param, i) => {
        const p = { ...param, schema: param.schema && nonNull(param.schema) };
        const field = c.fields.find((f) => f.key === p.name);
        const where = `GET ${c.roles.list.path} parameter ${p.name}`;
        if (typeOf(p.schema) === 'array' || typeOf(p.schema) === 'object') {
            const what = `filter ${p.name} is an ${typeOf(p.schema)}: no filter input takes several values`;
            out.push(`            ${todoLine({ what, where })}`);
            c.todos.push({ what, where });
            return;
        }
        const parts = [`source: ${q(p.name)}`, `label: ${q(field?.label ?? p.schema?.title ?? p.name)}`];
        if (p.schema?.enum?.length) {
            parts.push(`input: 'select'`);
            const inline = `[${p.schema.enum.map((v) => `{ id: ${lit(v)}, name: ${lit(String(v))} }`).join(', ')}]`;
            parts.push(`choices: ${field?.kind === 'select' ? field.choices : inline}`);
        } else if (i === 0) parts.push('alwaysOn: true');
        out.push(`            { ${parts.join(', ')} },`);
    });
    return out;
}

/** Why the edit dialog starts from getOne, or what the integrator must decide. */
function editNote(c: DefinitionContext): string {
    const { from, missing } = c.editLoad;
    if (from === 'getOne')
        return `        // The rows lack ${missing.join(', ')} the edit form needs: the edit dialog starts from getOne (GET ${c.roles.getOne!.path}).\n`;
    if (from === 'todo') {
        const update = c.roles.update!;
        const todo = {
            what: `the rows lack ${missing.join(', ')} the edit form needs and no detail path reads them: the edit dialog starts without them`,
            where: `${update.method.toUpperCase()} ${update.path}`,
        };
        // Printed with the others (c.todos), written here where it applies.
        c.todos.push(todo);
        return `        ${todoLine(todo)}\n`;
    }
    return '';
}

export function definitionSource(c: DefinitionContext, filters: string[]): string {
    const { create, update, remove } = c.roles;
    // The edit dialog's start: said where the rows lack what the form edits (the engine's default with a getOne).
    const editInDialog = c.editLoad.from === 'getOne' ? "{ load: 'getOne' }" : 'true';
    const columns = c.fields.filter((f) => f.inRows && !NOT_A_COLUMN.has(f.kind)).map((f) => q(f.key));
    const choiceImports = [...new Set(allChoices(c.fields))];
    const rights = c.rightFamily
        ? `    // x-right of its writes (${[create, update, remove]
              .map((o) => o?.right)
              .filter(Boolean)
              .join(
                  ', ',
              )}): 新建 / 编辑 / 删除 need ${c.rightFamily}.create / .edit / .delete.\n    rightFamily: ${q(c.rightFamily)},\n`
        : '';
    const todos = c.callTodos.map((t) => `    ${todoLine(t)}\n`).join('');
    const schemaNames = [...choiceImports, ...(create ? [c.schemaName] : [])];
    const schemaLine = schemaNames.length ? `import { ${schemaNames.join(', ')} } from '${c.schemaImport}';\n` : '';
    return `import ListAltIcon from '@mui/icons-material/ListAlt';
${schemaLine}import { defineResource } from '${c.engineTypes}';

/**
 * ${c.label} (${c.generatedNote}): list with its filters, ${create ? 'create and edit in dialogs, ' : ''}${remove ? 'delete, ' : ''}and its
 * menu entry. Its \`api\` paths are checked against openapi.yaml by tsc. Edit freely: docs/adding-a-resource.md.
 */
export default defineResource({
    name: ${q(c.name)},
    label: ${q(c.label)},
    path: ${q(c.routePath)},
    icon: ListAltIcon,
    idField: ${q(c.idField)},
${c.nameField ? `    recordRepresentation: ${q(c.nameField.key)},\n` : ''}${rights}    menu: { label: ${q(c.label)}, section: '设备接入', order: 99, icon: ListAltIcon },
    fields: {
${c.fields.map((f) => fieldLine(f, c.whereOf(f))).join('\n')}
    },
${create ? `    schema: ${c.schemaName},\n` : ''}    views: { show: false${create ? '' : ', create: false'}${update ? '' : ', edit: false'} },
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 50],
        columns: [${columns.join(', ')}],
        filters: [
${filters.join('\n')}
        ],
${create ? `        createInDialog: true,\n        createLabel: ${q(`新建${c.label}`)},\n` : ''}${editNote(c)}${update ? `        editInDialog: ${editInDialog},\n` : ''}${remove ? `        deleteConfirm: ${q(`确定删除该${c.label}吗？`)},\n` : ''}        empty: ${q(`暂无${c.label}`)},
    },
    messages: { created: '创建成功', updated: '修改成功', deleted: '删除成功' },
${todos}    api: {
${apiLines(c).join('\n')}
    },
});
`;
}

/** The choices constants the definition names: its fields' and its rows' cells'. */
export function allChoices(fields: FieldPlan[]): string[] {
    return fields.flatMap((f) => [...(f.choices ? [f.choices] : []), ...allChoices(f.rowFields ?? [])]);
}
