/**
 * The API mapping a resource definition declares. The data provider turns each react-admin verb into
 * the request described here; nothing about a family's paths, paging names or success codes lives
 * anywhere else.
 */
import type { paths } from '../src/api/schema';

/** Named success rules, one per API family (SPEC.md "The error catalogue"). */
export type SuccessRule =
    /** code 200, '200' or '000000' (most families) */
    | 'code200'
    /** code 0 (device calls, device candidates, run status) */
    | 'code0'
    /** returnCode '1111' (group calls, one device edit path) */
    | 'returnCode1111'
    /** returnCode 0 (legacy device edit) */
    | 'returnCode0';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The methods a call names, as openapi-typescript's `paths` spells them. */
export type ContractMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * The platform's contract: openapi.yaml's paths as `npm run gen:api` generates them (src/api/schema.d.ts). A
 * definition's calls (`defineResource`) name only the paths and methods it declares.
 */
export type ContractPaths = paths;

/** Any path with any method: the contract of an invented platform (engine tests, examples that fake their server). */
export type AnyPaths = Record<string, Record<ContractMethod, object>>;

/** The paths of contract C that declare method M (`ContractPath<'post'>`: every POST path of openapi.yaml). */
export type ContractPath<M extends ContractMethod, C = ContractPaths> = Extract<
    {
        [P in keyof C]: C[P] extends Partial<Record<M, unknown>> ? (undefined extends C[P][M] ? never : P) : never;
    }[keyof C],
    string
>;

/** Anything a call's params function may receive: the react-admin params plus the record when there is one. */
export type CallInput = Record<string, unknown>;

export interface ApiCall<C = AnyPaths> {
    /**
     * Exactly one of get / post / put / delete names the method and the path. Path may hold `{param}` segments.
     * In a definition (`defineResource`, C = ContractPaths) only a path openapi.yaml declares for that method.
     */
    get?: ContractPath<'get', C>;
    post?: ContractPath<'post', C>;
    put?: ContractPath<'put', C>;
    delete?: ContractPath<'delete', C>;
    /**
     * How the params travel. Defaults: GET and DELETE → 'query'; POST and PUT → 'form'.
     * 'segments' appends the param values, in `segments` order, as path segments (GET /x/{a}/{b}).
     * 'file' sends the File param as the raw body (application/octet-stream), the rest and its fileName in the query.
     */
    body?: 'form' | 'json' | 'query' | 'segments' | 'file';
    /** Order of values for body 'segments'. */
    segments?: string[];
    /** Names of the page-number and page-size params (e.g. ['pageNumber', 'pageSize'] or ['page', 'size']). */
    paging?: [string, string];
    /** react-admin filter key → platform param name. Unlisted filter keys are sent under their own name. */
    filters?: Record<string, string>;
    /**
     * Build the request params from the verb's input, replacing the defaults (renamed filters; `{ [idField]: id }`;
     * the form data; for update the data plus `[idField]: id`). The input holds react-admin's params (id, ids, data,
     * previousData, filter, pagination, sort, meta, target) spread over the fields of the filter (getList,
     * getManyReference) or of the record (create: data; update: previousData then data; delete: previousData),
     * plus `record` where there is one. So `params: (r) => ({ productId: r.id })` reads react-admin's id and
     * `params: ({ productName }) => ...` a record or filter field. Paging and sort are still added for lists.
     * For `invoke` and `url` the input is the params passed in.
     */
    params?: (input: CallInput) => Record<string, unknown>;
    /** Dotted path of the rows (getList / getMany) or the record (getOne, create, update) in the answer. */
    read?: string;
    /** Dotted path of the total in the answer (getList). */
    total?: string;
    /** Map a row from the platform's shape to the record react-admin sees (e.g. to supply `id`). */
    transform?: (row: Record<string, unknown>) => Record<string, unknown>;
    /** Override the family's success rule for this one call. */
    success?: SuccessRule;
    /** Names of the sort-field and sort-order params; react-admin's sort is sent only when this is declared. */
    sort?: [string, string];
    /**
     * How arrays of plain values travel in a query or form (arrays holding objects always travel as one JSON
     * string, objects too). Default 'repeat': `ids=1&ids=2`; 'comma': `ids=1,2`; 'json': `ids=[1,2]`.
     */
    arrays?: 'repeat' | 'comma' | 'json';
    /** Message shown when this call fails without a message of its own (default: the resource's, else '系统错误'). */
    failure?: string;
}

/** Verbs react-admin knows, plus named custom calls a resource invokes through `dataProvider.invoke`. */
export interface ApiMapping<C = AnyPaths> {
    success: SuccessRule;
    /** Field that is the record id in the platform's rows, when it is not `id` (e.g. 'productId'). */
    idField?: string;
    getList?: ApiCall<C>;
    getOne?: ApiCall<C>;
    getMany?: ApiCall<C>;
    getManyReference?: ApiCall<C>;
    create?: ApiCall<C>;
    update?: ApiCall<C>;
    updateMany?: ApiCall<C>;
    delete?: ApiCall<C>;
    deleteMany?: ApiCall<C>;
    /** Calls that are not CRUD: bind, unbind, BatchRegisterDevice, thing-model import, ... */
    custom?: Record<string, ApiCall<C>>;
}

/** What the data provider needs to know about each resource. */
export interface ApiResource {
    name: string;
    api?: ApiMapping;
    /** Id field of the platform's rows when `api.idField` does not say (ResourceDefinition.idField). */
    idField?: string;
    /** Failure messages per verb family, used when the server answers a failure without a message. */
    messages?: { createFailed?: string; updateFailed?: string; deleteFailed?: string };
}

/**
 * react-admin's DataProvider plus `invoke`, which runs one of a resource's named custom calls
 * (`api.custom[call]`) and answers `{ data }` read from the call's `read` path (the whole envelope data by default).
 */
export interface InvokeResult<T = unknown> {
    data: T;
    /** The full envelope, for calls whose answer carries more than data (e.g. import success / failure lists). */
    body: unknown;
}

export interface InvokeOptions {
    /** Upload progress from 0 to 1; when given, the request goes through XMLHttpRequest so progress can be seen. */
    onProgress?: (fraction: number) => void;
    signal?: AbortSignal;
}

export interface PlatformDataProviderMethods {
    invoke<T = unknown>(
        resource: string,
        call: string,
        params?: Record<string, unknown>,
        opts?: InvokeOptions,
    ): Promise<InvokeResult<T>>;
    /**
     * The URL (prefix + path + query) of a GET call, for links the browser navigates itself (exports,
     * templates). `call` names a custom call or a verb. The session cookie travels with such a link; a token
     * kept only in local storage cannot. It answers synchronously, so call it on the provider itself
     * (`useContext(DataProviderContext)`), not through `useDataProvider()`, whose proxy expects a promise.
     */
    url(resource: string, call: string, params?: Record<string, unknown>): string;
}
