import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { scaffold, type ScaffoldResult } from '../../scripts/newResource';
import { fieldsFor, inputKindOf, type ResourceDefinition } from '../../src/engine';
import { bodyRows, mswServer, renderDefinitions } from './helpers';

/**
 * `npm run new:resource` over every path group (openapi tag) of openapi.yaml, rendered in jsdom (issue 40, Done when):
 * each group's generated definition lists the rows an msw platform answers (the scaffold's own sample rows, made from
 * the contract's examples and rules, in the contract's envelope, under the list call's paging, `read` and `total`), and its
 * 新建 dialog shows every field of the create form. The files go to tests/resources/scaffold-tmp (ignored by the
 * project's checks); the generated test files are removed at once (only their sample rows are read), the rest after.
 * One render per group keeps the file near a minute and a half on a quiet machine.
 */

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'tests/resources/scaffold-tmp', `render-${process.pid}`);
const doc = parse(readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { tags: Array<{ name: string }> };

interface Scaffolded {
    tag: string;
    result: ScaffoldResult;
    rows: Array<Record<string, unknown>>;
}

/** The sample rows the scaffolded test starts its platform from (`const SAMPLE: Row[] = [...]`). */
function sampleRowsOf(testFile: string): Array<Record<string, unknown>> {
    const text = readFileSync(testFile, 'utf8');
    const match = /const SAMPLE: Row\[\] = (\[[\s\S]*?\]);\n\nlet rows/.exec(text);
    if (!match) throw new Error(`${testFile}: no SAMPLE rows`);
    // Prettier wrote it as a JavaScript literal (unquoted keys): evaluate the scaffold's own text.
    return new Function(`return ${match[1]};`)() as Array<Record<string, unknown>>;
}

rmSync(out, { recursive: true, force: true });
// Registered first, so a scaffold that throws below still leaves nothing behind.
afterAll(() => rmSync(out, { recursive: true, force: true }));
const groups: Scaffolded[] = [];
for (const { name } of doc.tags) {
    // A group without a GET list is refused with the reason (tests/unit/newResourceContract.test.ts checks which).
    const result = await scaffold({ target: name, out }).catch(() => undefined);
    if (!result) continue;
    const testFile = result.files.find((f) => f.endsWith('.test.tsx'))!;
    groups.push({ tag: name, result, rows: sampleRowsOf(testFile) });
    rmSync(testFile);
}

/** The success fields of each envelope rule the scaffold writes (scripts/newResource/testSource.ts). */
const ENVELOPES: Record<string, Record<string, unknown>> = {
    returnCode1111: { returnCode: '1111', returnMessage: 'success' },
    returnCode0: { returnCode: 0, returnMessage: 'success' },
    code0: { code: 0, msg: 'success' },
    code200: { code: 200, msg: 'success' },
};

/** An answer with `value` at a dotted path ('data.records'). */
function put(answer: Record<string, unknown>, dotted: string, value: unknown) {
    const keys = dotted.split('.');
    let at = answer;
    for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
    at[keys.at(-1)!] = value;
}

interface ListCall {
    get: string;
    read?: string;
    total?: string;
    paging?: [string, string];
}

/** The list call answering a page of the sample rows in the contract's envelope, under the paging names it sends. */
function listHandler(definition: ResourceDefinition, rows: Array<Record<string, unknown>>) {
    const api = definition.api as unknown as { success?: string; getList: ListCall };
    const call = api.getList;
    return http.get(`*${call.get}`, ({ request }) => {
        const query = new URL(request.url).searchParams;
        const n = Number(call.paging ? (query.get(call.paging[0]) ?? 1) : 1);
        const size = call.paging ? Number(query.get(call.paging[1]) ?? 10) : rows.length;
        const answer: Record<string, unknown> = { ...(ENVELOPES[api.success ?? 'code200'] ?? ENVELOPES.code200) };
        put(answer, call.read ?? 'data', rows.slice((n - 1) * size, n * size));
        if (call.total) put(answer, call.total, rows.length);
        return HttpResponse.json(answer);
    });
}

const routeOf = (definition: ResourceDefinition) => `/${definition.path ?? definition.name}`;

describe('every path group of openapi.yaml, scaffolded and rendered', () => {
    it('scaffolds most groups (the others have no GET list)', () => {
        expect(groups.length).toBeGreaterThan(doc.tags.length / 2);
    });

    it.each(groups.map((g) => [g.tag, g] as const))('%s: lists a row and shows the create form', async (_tag, g) => {
        const file = g.result.files.find((f) => f.includes(`${path.sep}resources${path.sep}`) && f.endsWith('.tsx'))!;
        const definition = ((await import(file)) as { default: ResourceDefinition }).default;
        mswServer.use(listHandler(definition, g.rows));
        renderDefinitions([definition], routeOf(definition));
        await waitFor(() => expect(bodyRows().length).toBeGreaterThan(0), { timeout: 15_000 });
        const paged = (definition.api as unknown as { getList: ListCall }).getList.paging;
        expect(bodyRows()).toHaveLength(
            paged ? Math.min(g.rows.length, definition.list?.perPage ?? 10) : g.rows.length,
        );

        const inForm = fieldsFor(definition, 'create').filter(([, f]) => inputKindOf(f) !== 'none');
        const create = screen.queryByRole('button', { name: `新建${definition.label}` });
        if (!definition.api?.create) {
            expect(create).toBeNull();
            return;
        }
        expect(inForm.length).toBeGreaterThan(0);
        fireEvent.click(create!);
        const dialog = await screen.findByRole('dialog', { name: `新建${definition.label}` });
        for (const [, field] of inForm) {
            await waitFor(() =>
                expect(within(dialog).getAllByText(new RegExp(escape(field.label))).length).toBeGreaterThan(0),
            );
        }
    });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
