/**
 * The operations of one path group (an openapi tag or a path prefix) and their roles: the list, the detail, create,
 * update, delete and the custom calls; how the edit form gets its record; the `api` block that calls them.
 */
import {
    answerOf,
    bodyOf,
    listShape,
    pagingOf,
    typeOf,
    type Json,
    type ListShape,
    type Operation,
    type Parameter,
    type Schema,
} from './contract';

const METHODS = ['get', 'post', 'put', 'delete'] as const;
export const SUCCESS_RULES = ['code200', 'code0', 'returnCode1111', 'returnCode0'];

/** The operations whose tag is `target`, or whose path starts with it (a target starting with '/'). */
export function operationsOf(doc: Json, resolve: (n: unknown) => unknown, target: string): Operation[] {
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
            const body = bodyOf(op);
            ops.push({
                method,
                path: p,
                operationId: op.operationId as string | undefined,
                tags,
                parameters: params,
                body: resolve(body.schema) as Schema | undefined,
                bodyEncoding: body.encoding,
                answer: resolve(answerOf(op)) as Schema | undefined,
                successRule: op['x-success-rule'] as string | undefined,
                right: op['x-right'] as string | undefined,
            });
        }
    }
    return ops;
}

export interface Roles {
    list: Operation;
    shape: ListShape;
    paging?: [string, string];
    getOne?: Operation;
    create?: Operation;
    update?: Operation;
    remove?: Operation;
    customs: Operation[];
}

const last = (op: Operation) => op.path.split('/').pop() ?? '';

function pick(ops: Operation[], method: string[], name: RegExp, exclude: Array<Operation | undefined> = []) {
    return ops.find((o) => !exclude.includes(o) && method.includes(o.method) && name.test(last(o)));
}

/** The list (a paged GET first, else any GET answering rows), the detail, create, update, delete, the rest custom. */
export function rolesOf(ops: Operation[], target: string): Roles {
    const lists = ops.filter((o) => o.method === 'get' && listShape(o.answer));
    const list = lists.find((o) => pagingOf(o.parameters)) ?? lists.find((o) => /list/i.test(last(o))) ?? lists[0];
    if (!list) throw new Error(`openapi: "${target}" has no GET list (rows in data, paged or not)`);
    const getOne = ops.find(
        (o) =>
            o !== list &&
            o.method === 'get' &&
            /^(get|detail|info|\{[^}]+\})$/.test(last(o)) &&
            typeOf(o.answer?.properties?.data) === 'object',
    );
    const create = pick(ops, ['post', 'put'], /^(save|add|create|insert)$/);
    const update = pick(ops, ['post', 'put'], /^(update|edit|modify)$/, [create]) ?? create;
    const remove =
        ops.find((o) => o.method === 'delete') ?? pick(ops, ['post'], /^(delete|remove|del)$/, [create, update]);
    const known = [list, getOne, create, update, remove];
    return {
        list,
        shape: listShape(list.answer)!,
        paging: pagingOf(list.parameters),
        getOne,
        create,
        update,
        remove,
        customs: ops.filter((o) => !known.includes(o)),
    };
}

/** How the edit form gets its record: the row as listed, or the detail call when the row lacks what the form edits. */
export interface EditLoad {
    from: 'row' | 'getOne' | 'todo';
    /** The form's properties the list rows do not carry. */
    missing: string[];
}

export function editLoadOf(rows: Schema, form: Schema | undefined, getOne: Operation | undefined, idField: string) {
    const rowProps = rows.properties ?? {};
    const missing = Object.keys(form?.properties ?? {}).filter((k) => k !== idField && !(k in rowProps));
    if (!missing.length) return { from: 'row', missing } satisfies EditLoad;
    const detail = getOne?.answer?.properties?.data?.properties;
    // The detail answers them (or does not say what it answers): edit reads it; else they are write-only (a password).
    if (getOne && (!detail || missing.some((k) => k in detail))) return { from: 'getOne', missing } satisfies EditLoad;
    return { from: getOne ? 'row' : 'todo', missing } satisfies EditLoad;
}
