/**
 * `npm run scaffold:check` (run first by `npm test`): the scaffolder's output, written where the project's own checks
 * hold it to their rules, so what `npm run new:resource` writes typechecks, lints and passes its own test as written.
 * Into tests/resources/scaffold-check/ (git-ignored, rewritten each run):
 * - contract/: every openapi.yaml group with a GET list, each scaffolded as an integrator would. The project's one
 *   `tsc --noEmit` and `eslint .` cover them (their own msw tests are not run: vite.config.ts leaves this folder out);
 * - fragment/: a contract fragment the product does not have (tests/unit/fixtures/forwarding.openapi.yaml): its types
 *   from openapi-typescript joined to the product's `paths`, its two scaffolds, and their msw tests, which the
 *   resources project runs.
 * One program and one lint for the project and every scaffold: a tsc of its own per scaffold test took minutes of CI.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';
import { formatted, scaffold } from './newResource';

const root = path.resolve(import.meta.dirname, '..');
export const SCAFFOLD_CHECK_DIR = path.join(root, 'tests/resources/scaffold-check');
export const FRAGMENT_SPEC = path.join(root, 'tests/unit/fixtures/forwarding.openapi.yaml');

/** The fragment's scaffolds: its tag and the resource name each is written under. */
export const FRAGMENT_SCAFFOLDS = [
    { target: 'forwarding', name: 'forwardDests' },
    { target: 'contacts', name: 'contactGroups' },
] as const;

/** Scaffolds every group of openapi.yaml that has a GET list (the others are refused, as the scaffolder says). */
async function writeContract(out: string): Promise<string[]> {
    const doc = parse(readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { tags: Array<{ name: string }> };
    const written: string[] = [];
    for (const { name } of doc.tags) {
        const result = await scaffold({ target: name, out }).catch(() => undefined);
        if (result) written.push(result.name);
    }
    return written;
}

/** The fragment's types joined to the product's `paths` (src/api/schema), then its scaffolds. */
async function writeFragment(out: string): Promise<void> {
    mkdirSync(out, { recursive: true });
    const types = astToString(await openapiTS(pathToFileURL(FRAGMENT_SPEC), { silent: true }));
    writeFileSync(path.join(out, 'contract.d.ts'), await formatted(types, path.join(out, 'contract.d.ts')));
    const schemaModule = path.relative(out, path.join(root, 'src/api/schema')).split(path.sep).join('/');
    writeFileSync(
        path.join(out, 'augment.ts'),
        `import type { paths as Fragment } from './contract';\n\n` +
            `declare module '${schemaModule}' {\n` +
            `    // eslint-disable-next-line @typescript-eslint/no-empty-object-type\n` +
            `    interface paths extends Fragment {}\n}\n`,
    );
    for (const s of FRAGMENT_SCAFFOLDS) await scaffold({ ...s, spec: FRAGMENT_SPEC, out });
}

export type ScaffoldCheckPart = 'contract' | 'fragment';

/** Rewrites the parts asked for (each its own folder under `dir`); the names of the contract groups scaffolded. */
export async function writeScaffoldCheck(
    parts: ScaffoldCheckPart[] = ['contract', 'fragment'],
    dir = SCAFFOLD_CHECK_DIR,
): Promise<string[]> {
    let contract: string[] = [];
    for (const part of parts) {
        const out = path.join(dir, part);
        rmSync(out, { recursive: true, force: true });
        if (part === 'contract') contract = await writeContract(out);
        else await writeFragment(out);
    }
    return contract;
}

// `tsx scripts/scaffoldCheck.ts [--contract | --fragment]`: npm test writes the fragment before vitest collects the
// resources project's files, and the contract's before its lint and tsc.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
    const started = Date.now();
    const asked = process.argv.slice(2).map((a) => a.replace(/^--/, '')) as ScaffoldCheckPart[];
    const parts = asked.length ? asked : (['contract', 'fragment'] as ScaffoldCheckPart[]);
    const contract = await writeScaffoldCheck(parts);
    console.log(
        `scaffold:check: ${parts.join(', ')} (${contract.length} contract groups) in ` +
            `${path.relative(root, SCAFFOLD_CHECK_DIR)}, ${Math.round((Date.now() - started) / 1000)} s`,
    );
}
