import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const contract = path.join(root, 'openapi.yaml');
const generatedFile = path.join(root, 'src/api/schema.d.ts');

/** What `npm run gen:api` writes: the CLI's header + astToString, then prettier with the project's config. */
async function generate(spec: string): Promise<string> {
    const ast = await openapiTS(pathToFileURL(spec), { silent: true });
    const options = (await prettier.resolveConfig(generatedFile)) ?? {};
    return prettier.format(COMMENT_HEADER + astToString(ast), { ...options, filepath: generatedFile });
}

describe('src/api/schema.d.ts', () => {
    it('is what openapi.yaml generates (run `npm run gen:api` after changing the contract)', async () => {
        const committed = readFileSync(generatedFile, 'utf8');
        expect(committed === (await generate(contract)), 'src/api/schema.d.ts is stale: run `npm run gen:api`').toBe(
            true,
        );
    }, 30_000);

    it('tells a changed contract apart', async () => {
        const changed = path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.yaml');
        writeFileSync(changed, readFileSync(contract, 'utf8').replace('/api/product/save:', '/api/product/create:'));
        const fresh = await generate(changed);
        expect(fresh).toContain("'/api/product/create'");
        expect(fresh).not.toBe(readFileSync(generatedFile, 'utf8'));
    }, 30_000);
});
