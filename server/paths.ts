import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root: the nearest folder above this module that holds package.json. The same from the sources
 * (server/…, run by tsx and the tests) and from the compiled server (dist-server/index.mjs, run by `npm start`), so
 * files shipped beside the code (migrations, openapi.yaml, map assets, the cluster worker) are found from either.
 * Under jsdom import.meta.url is not a file URL: the working directory is the root there.
 */
function findRoot(): string {
    let dir = import.meta.url.startsWith('file:') ? path.dirname(fileURLToPath(import.meta.url)) : process.cwd();
    for (;;) {
        if (existsSync(path.join(dir, 'package.json'))) return dir;
        const up = path.dirname(dir);
        if (up === dir) return process.cwd();
        dir = up;
    }
}

export const PROJECT_ROOT = findRoot();

/** A path inside the project, e.g. `fromRoot('server', 'db', 'migrations')`. */
export function fromRoot(...segments: string[]): string {
    return path.join(PROJECT_ROOT, ...segments);
}

/** Where derived files are kept between runs (the PGlite template, openapi.yaml's parsed operations). */
export const cacheDir = (): string => fromRoot('node_modules', '.cache', 'iot-console');

/**
 * Removes the older entries of one kind from a cache folder (`prefix` + key, files or folders), keeping the `keep`
 * most recently written and any written in the last ten minutes (another process's build in flight). Each changed migration or openapi.yaml leaves a new entry behind (a template is ~40 MB), and
 * checkouts sharing node_modules may still use a few recent ones; a removed one is only rebuilt when asked for again.
 */
export function pruneCache(dir: string, prefix: string, keep: number): void {
    try {
        const entries = readdirSync(dir)
            .filter((name) => name.startsWith(prefix))
            .map((name) => ({ name, at: statSync(path.join(dir, name)).mtimeMs }))
            .sort((a, b) => b.at - a.at);
        const recent = Date.now() - 10 * 60_000;
        for (const { name } of entries.slice(keep).filter((e) => e.at < recent))
            rmSync(path.join(dir, name), { recursive: true, force: true });
    } catch {
        // A read-only cache or an entry removed meanwhile by another process: nothing to prune now.
    }
}
