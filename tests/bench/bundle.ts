import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const DIST = path.resolve('dist');

function gzipKb(file: string): number {
    return Math.round((gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length / 1024) * 10) / 10;
}

/**
 * The JS the browser fetches before the first screen paints: the entry script of index.html and the
 * chunks it preloads (Vite emits a modulepreload link for every static import of the entry).
 */
function firstScreenFiles(): string[] {
    const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
    const refs = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/?([^"]+\.js)"/g)];
    return [...new Set(refs.map((m) => m[1]))];
}

export default {
    name: 'bundle',
    async run() {
        execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'], {
            stdio: 'inherit',
        });
        const first = firstScreenFiles();
        const firstKb = first.reduce((sum, f) => sum + gzipKb(f), 0);
        const routeChunks = readdirSync(path.join(DIST, 'assets'))
            .filter((f) => f.endsWith('.js'))
            .map((f) => `assets/${f}`)
            .filter((f) => !first.includes(f))
            .map((f) => ({ f, kb: gzipKb(f) }))
            .sort((a, b) => b.kb - a.kb);
        const largest = routeChunks[0];
        return [
            { name: 'first_screen_js_gzip', value: Math.round(firstKb * 10) / 10, unit: 'KB' },
            { name: 'largest_route_chunk_gzip', value: largest?.kb ?? 0, unit: `KB (${largest?.f ?? 'none'})` },
        ];
    },
};
