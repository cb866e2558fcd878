import path from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module of the project's scripts, without types.
import { bundleOptions } from '../../scripts/server-build.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const built = new Map<string, Promise<string>>();

/**
 * A bench's server-side process (a broker or platform harness under tests/bench) bundled as `npm start` bundles the
 * server (scripts/server-build.mjs), answered as the file to run with plain `node`. Run through tsx instead, each such
 * process carries tsx's TypeScript loader: measured at 152 MB idle RSS against 66 MB bundled (PostgreSQL + Redis, no
 * devices), so a figure of RSS or start-up would be tsx's, not the product's. Built once per bench run, under tmp/.
 */
export function compiled(entry: string): Promise<string> {
    let file = built.get(entry);
    if (!file) {
        const outfile = path.join(
            ROOT,
            'tmp',
            'bench-build',
            `${entry.replace(/[/\\]/g, '_').replace(/\.ts$/, '')}.mjs`,
        );
        file = build(bundleOptions(path.join(ROOT, entry), outfile)).then(() => outfile);
        built.set(entry, file);
    }
    return file;
}
