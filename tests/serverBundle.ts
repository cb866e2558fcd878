import { rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { inject } from 'vitest';
// @ts-expect-error: a plain ES module of the project's scripts, without types.
import { bundleOptions } from '../scripts/server-build.mjs';

declare module 'vitest' {
    export interface ProvidedContext {
        /** The platform server bundled for this test run (tests/serverBundleSetup.ts), '' when none was built. */
        serverBundle: string;
    }
}

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * server/index.ts bundled as `npm start` bundles it (scripts/server-build.mjs), once per test run, for the tests that
 * start server processes of their own (clusters, start-up, the fault-injection suite). Run through tsx, each process
 * compiled and resolved several hundred modules on start (7.8-10.1 s against 4.6-5.7 s bundled, loaded 2-core
 * machine) and carried tsx's loader in its memory. Under tmp/ in the project, so the bundle's packages resolve from
 * its node_modules; a directory per run, since the server, PostgreSQL and chaos runs build at the same time.
 */
export async function buildServerBundle(): Promise<{ file: string; remove: () => void }> {
    const dir = path.join(ROOT, 'tmp', 'test-server', String(process.pid));
    const file = path.join(dir, 'index.mjs');
    await build({ ...bundleOptions(path.join(ROOT, 'server', 'index.ts'), file), metafile: false });
    return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `node`'s arguments that start the platform server: the run's bundle, or the sources through tsx in a project that
 * built none.
 */
export function serverCommand(): string[] {
    const bundle = inject('serverBundle');
    return bundle ? [bundle] : ['--import', 'tsx', path.join(ROOT, 'server', 'index.ts')];
}
