/**
 * Reading openapi.yaml for the scaffolder: the types of what it reads, local $refs resolved, allOf merged, request
 * bodies with their encoding, and where a list answer keeps its rows, its total and its paging names.
 */

export type Json = Record<string, unknown>;
export type Schema = Json & {
    type?: string | string[];
    properties?: Record<string, Schema>;
    items?: Schema;
    required?: string[];
    enum?: unknown[];
    maxLength?: number;
    minLength?: number;
    minimum?: number;
    maximum?: number;
    minItems?: number;
    maxItems?: number;
    pattern?: string;
    format?: string;
    title?: string;
    example?: unknown;
    allOf?: Schema[];
    oneOf?: Schema[];
    anyOf?: Schema[];
    additionalProperties?: boolean | Schema;
};
export interface Parameter {
    name: string;
    in: string;
    required?: boolean;
    schema?: Schema;
    description?: string;
}
/** How a request body travels: the data provider's default form, or `body: 'json'`. */
export type BodyEncoding = 'form' | 'json' | 'file';
export interface Operation {
    method: 'get' | 'post' | 'put' | 'delete';
    path: string;
    operationId?: string;
    tags?: string[];
    parameters: Parameter[];
    body?: Schema;
    bodyEncoding?: BodyEncoding;
    answer?: Schema;
    successRule?: string;
    right?: string;
}

/** The contract with its local $refs resolved (cycles cut after a few levels) and allOf merged. */
export function resolver(doc: Json) {
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
        const out = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolve(v, depth + 1)])) as Schema;
        return Array.isArray(out.allOf) ? mergeAllOf(out) : out;
    };
    return resolve;
}

/** allOf's parts as one schema: their properties and required names together, the schema's own words last. */
export function mergeAllOf(schema: Schema): Schema {
    const { allOf = [], ...own } = schema;
    const parts = [...allOf, own as Schema];
    const properties = Object.assign({}, ...parts.map((p) => p.properties ?? {})) as Record<string, Schema>;
    const required = [...new Set(parts.flatMap((p) => p.required ?? []))];
    const merged: Schema = Object.assign({}, ...parts) as Schema;
    return {
        ...merged,
        ...(Object.keys(properties).length ? { properties, type: merged.type ?? 'object' } : {}),
        ...(required.length ? { required } : {}),
    };
}

export const typeOf = (s: Schema | undefined): string | undefined =>
    Array.isArray(s?.type) ? s.type.find((t) => t !== 'null') : s?.type;

/** The JSON answer's schema of an operation's 200. */
export function answerOf(op: Json): Schema | undefined {
    const ok = (op.responses as Json | undefined)?.['200'] as Json | undefined;
    const content = ok?.content as Json | undefined;
    return (content?.['application/json'] as Json | undefined)?.schema as Schema | undefined;
}

/**
 * The request body's schema and how it travels: a form (urlencoded or multipart, the data provider's default) when
 * the contract offers one, else `json` for an `application/json` body, `file` for a raw octet-stream.
 */
export function bodyOf(op: Json): { schema?: Schema; encoding?: BodyEncoding } {
    const content = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    if (!content) return {};
    const form = content['application/x-www-form-urlencoded'] ?? content['multipart/form-data'];
    if (form) return { schema: form.schema as Schema | undefined, encoding: 'form' };
    const json = content['application/json'];
    if (json) return { schema: json.schema as Schema | undefined, encoding: 'json' };
    // A raw file as the body (body 'file': the File param travels alone, the rest in the query).
    if (content['application/octet-stream']) return { encoding: 'file' };
    return {};
}

/** Where a list answer keeps its rows and its total: `{ read: 'data.records', total: 'data.total' }`, or `read: 'data'`. */
export interface ListShape {
    rows: Schema;
    read: string;
    total?: string;
}

const ROWS_NAMES = /^(records|list|rows|items|content|resultList|dataList|results)$/;
const TOTAL_NAMES = /^(total|totalCount|count|totalElements|totalRecords|recordCount|totalSize)$/;

const isObjectArray = (s: Schema | undefined) => typeOf(s) === 'array' && !!s?.items && typeOf(s.items) === 'object';

/** The list envelope under `data`: an array of rows, or an object with one array of rows and a total beside it. */
export function listShape(answer: Schema | undefined): ListShape | undefined {
    const data = answer?.properties?.data;
    if (!data) return undefined;
    if (isObjectArray(data)) return { rows: data.items!, read: 'data' };
    const props = Object.entries(data.properties ?? {});
    const arrays = props.filter(([, p]) => isObjectArray(p));
    const rowsEntry = arrays.find(([k]) => ROWS_NAMES.test(k)) ?? arrays[0];
    if (!rowsEntry) return undefined;
    const integers = props.filter(([k, p]) => k !== rowsEntry[0] && typeOf(p) === 'integer');
    const total = integers.find(([k]) => TOTAL_NAMES.test(k)) ?? integers.find(([k]) => /total|count/i.test(k));
    return { rows: rowsEntry[1].items!, read: `data.${rowsEntry[0]}`, total: total ? `data.${total[0]}` : undefined };
}

const PAGE_NUMBER = /^(pageNumber|pageNo|pageNum|pageIndex|page|current|currentPage|nextPage)$/;
const PAGE_SIZE = /^(pageSize|size|limit|perPage|rows|pageLimit)$/;

/** The list's page-number and page-size parameters as the contract names them, when it pages. */
export function pagingOf(params: Parameter[]): [string, string] | undefined {
    const query = params.filter((p) => p.in === 'query');
    const number = query.find((p) => PAGE_NUMBER.test(p.name));
    const size = query.find((p) => PAGE_SIZE.test(p.name));
    return number && size ? [number.name, size.name] : undefined;
}

export const isPagingParam = (p: Parameter) => PAGE_NUMBER.test(p.name) || PAGE_SIZE.test(p.name);
