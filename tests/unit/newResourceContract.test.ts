import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffold, type ScaffoldResult } from '../../scripts/newResource';
import { resolver, type Json, type Schema } from '../../scripts/newResource/contract';

/**
 * `npm run new:resource` over every path group (openapi tag) of openapi.yaml: each group with a GET list scaffolds, and
 * its notes (TODO(scaffold)) are written in its definition. That the files of every group pass tsc against the
 * product's own contract types, eslint and prettier is the project's checks' to prove: npm test writes them to
 * tests/resources/scaffold-check/contract (scripts/scaffoldCheck.ts) before its lint and tsc. The files of this test go
 * to tests/resources/scaffold-tmp (which the checks leave out) and are removed after.
 */

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'tests/resources/scaffold-tmp', `contract-${process.pid}`);
const doc = parse(readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as {
    tags: Array<{ name: string }>;
    paths: Record<string, Record<string, { tags?: string[]; responses?: unknown }>>;
};

const results = new Map<string, ScaffoldResult>();
const refused = new Map<string, string>();

/** Whether any GET of the group answers rows (an array of objects) under `data` or one level below it. */
function answersRows(tag: string): boolean {
    const resolve = resolver(doc as unknown as Json);
    const rows = (s: Schema | undefined) => s?.type === 'array' && s.items?.type === 'object';
    return Object.values(doc.paths).some((item) => {
        if (!item.get?.tags?.includes(tag)) return false;
        const data = (resolve(item.get.responses) as Json | undefined)?.['200'] as Json | undefined;
        const schema = ((data?.content as Json | undefined)?.['application/json'] as Json | undefined)
            ?.schema as Schema;
        const body = schema?.properties?.data;
        return rows(body) || Object.values(body?.properties ?? {}).some(rows);
    });
}

beforeAll(async () => {
    rmSync(out, { recursive: true, force: true });
    for (const { name } of doc.tags) {
        try {
            results.set(name, await scaffold({ target: name, out }));
        } catch (e) {
            refused.set(name, (e as Error).message);
        }
    }
}, 600_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run new:resource over every path group of openapi.yaml', () => {
    it('scaffolds every group that has a GET list, and refuses the others saying why', () => {
        expect(results.size + refused.size).toBe(doc.tags.length);
        expect(results.size).toBeGreaterThan(doc.tags.length / 2);
        for (const [tag, message] of refused) {
            expect(message).toBe(`openapi: "${tag}" has no GET list (rows in data, paged or not)`);
            expect(answersRows(tag), `${tag} has a list the scaffold missed`).toBe(false);
        }
    });

    it('writes each note it prints into the definition, where the construct is', () => {
        const notes = [...results.values()].flatMap((r) => r.todos.map((t) => [r, t] as const));
        // The contract has arrays of plain values (simulation deviceIds, alert channelIds) and nested maps (rule actions).
        expect(notes.length).toBeGreaterThan(0);
        for (const [result, note] of notes) {
            const definition = readFileSync(
                result.files.find((f) => f.endsWith('.tsx') && f.includes('/resources/'))!,
                'utf8',
            );
            expect(definition.replace(/\s+/g, ' ')).toContain(note.replace(/\s+/g, ' '));
        }
    });
});
