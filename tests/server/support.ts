import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { asc, eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { parse } from 'yaml';
import type { Db } from '../../server/db/client';
import * as tables from '../../server/db/schema';
import type { TestServer } from '../../server/testing';

export const ROOT = path.resolve(import.meta.dirname, '../..');

type Json = Record<string, unknown>;
export const spec = parse(readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')) as Json;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

export interface Operation {
    method: string;
    path: string;
    op: Json;
}

export const operations: Operation[] = Object.entries(spec.paths as Record<string, Json>).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path: p, op: item[m] as Json })),
);

/** Operations that need a session (all but those declaring `security: []`). */
export const protectedOperations = operations.filter(
    (o) => !(Array.isArray(o.op.security) && (o.op.security as unknown[]).length === 0),
);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi.json', undefined, false);

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function resolve(pointer: string): unknown {
    return pointer
        .split('/')
        .slice(1)
        .reduce<unknown>(
            (node, part) => (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
            spec,
        );
}

const validators = new Map<string, ValidateFunction | null>();

/** The validator of the JSON body an operation declares for a status; null when it declares no JSON body. */
export function responseValidator(method: string, apiPath: string, status: number): ValidateFunction | null {
    const key = `${method} ${apiPath} ${status}`;
    if (validators.has(key)) return validators.get(key)!;
    let pointer = `#/paths/${escapePointer(apiPath)}/${method.toLowerCase()}/responses/${status}`;
    let response = resolve(pointer) as Json | undefined;
    if (!response) throw new Error(`openapi.yaml declares no ${status} answer for ${method} ${apiPath}`);
    if (typeof response.$ref === 'string') {
        pointer = response.$ref;
        response = resolve(pointer) as Json;
    }
    const hasJson = (response.content as Json | undefined)?.['application/json'];
    const validator = hasJson
        ? ajv.compile({ $ref: `openapi.json${pointer}/content/${escapePointer('application/json')}/schema` })
        : null;
    validators.set(key, validator);
    return validator;
}

/** Fails the test unless the answer's status is declared for the operation and its body matches the schema. */
export function expectContract(method: string, apiPath: string, status: number, body: unknown): void {
    const validate = responseValidator(method, apiPath, status);
    if (!validate) return;
    const ok = validate(body);
    expect(
        ok,
        `${method} ${apiPath} → ${status} does not match openapi.yaml: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    ).toBe(true);
}

/** Every (method, path, status) answered through `call`, for coverage checks within one test file. */
export const answered = new Set<string>();

export interface Answer<T = Json> {
    status: number;
    body: T;
    res: Response;
}

/**
 * One call through the in-process app, checked against openapi.yaml. `target` may carry a query string;
 * the path part names the operation.
 */
export async function call<T = Json>(
    server: TestServer,
    method: string,
    target: string,
    init: RequestInit & { anonymous?: boolean } = {},
): Promise<Answer<T>> {
    const { anonymous, ...rest } = init;
    const res = await (anonymous ? server.anonFetch : server.fetch)(target, { ...rest, method });
    const apiPath = target.split('?')[0];
    const text = await res.text();
    const body = (res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text) as T;
    expectContract(method, apiPath, res.status, body);
    answered.add(`${method} ${apiPath} ${res.status}`);
    return { status: res.status, body, res };
}

export const form = (values: Record<string, string | number>): RequestInit => ({
    body: new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)])),
});

export const json = (value: unknown): RequestInit => ({
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json' },
});

/** Row counts of every table, to prove a refused call wrote nothing. */
export async function rowCounts(db: Db): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, table] of Object.entries(tables.schema)) {
        const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(table);
        out[name] = Number(row.n);
    }
    return out;
}

/** A valid product form; override fields to make it invalid. */
export function productForm(overrides: Record<string, string | number> = {}): Record<string, string | number> {
    return {
        productName: `产品_${Math.random().toString(36).slice(2, 8)}`,
        categoryId: 3,
        nodeType: 0,
        gatewayType: 0,
        networkType: 5,
        dataType: 0,
        projectCode: '',
        remark: '',
        ...overrides,
    };
}

/** A new product with `amount` devices registered through the API (BatchRegisterDevice): their ids, oldest first. */
export async function productWithDevices(server: TestServer, amount: number): Promise<number[]> {
    const product = await call<{ data: { productId: number } }>(
        server,
        'POST',
        '/api/product/save',
        form(productForm()),
    );
    expect(product.status, JSON.stringify(product.body)).toBe(200);
    const { productId } = product.body.data;
    const batch = await call(server, 'POST', '/api/device/BatchRegisterDevice', form({ productId, amount }));
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const rows = await server.db
        .select({ id: tables.devices.id })
        .from(tables.devices)
        .where(eq(tables.devices.productId, productId))
        .orderBy(asc(tables.devices.id));
    expect(rows).toHaveLength(amount);
    return rows.map((r) => r.id);
}

/** A valid property function for the product. */
export function propertyFunction(productId: number, overrides: Json = {}): Json {
    return {
        productId,
        type: 'property',
        identifier: `prop_${Math.random().toString(36).slice(2, 8)}`,
        name: '温度',
        accessMode: 'r',
        dataType: { type: 'float', specs: { min: '-40', max: '120', step: '0.1', unit: '°C' } },
        ...overrides,
    };
}
