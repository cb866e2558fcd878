import { existsSync } from 'node:fs';
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
