import path from 'node:path';

/**
 * A Vite plugin: `<link rel="modulepreload">` for a lazily loaded module's chunks, only on the routes that show it.
 * The build writes { route: [files] } into index.html as a JSON block (data, not a script that runs), and the boot
 * (src/boot/routePreloads.ts) adds the links for the route the page opened on: the chunks are fetched and compiled
 * beside the boot's own, not evaluated (the module still runs when the screen imports it). Chunks the entry loads
 * anyway are left out; the stylesheets and assets the chunks import are listed too.
 *
 * @param {Record<string, string[]>} routes a module path (from the project root) to the routes that show it
 * @returns {import('vite').Plugin}
 */
export function routePreloads(routes) {
    let root = process.cwd();
    let base = '/';
    return {
        name: 'route-preloads',
        apply: 'build',
        configResolved(config) {
            root = config.root;
            base = config.base;
        },
        transformIndexHtml: {
            order: 'post',
            handler(_html, ctx) {
                if (!ctx.bundle || !ctx.chunk) return;
                const chunks = Object.values(ctx.bundle).filter((c) => c.type === 'chunk');
                const byFile = new Map(chunks.map((c) => [c.fileName, c]));
                /** A chunk and every chunk it imports statically. */
                const closure = (file, into = new Set()) => {
                    if (into.has(file)) return into;
                    into.add(file);
                    for (const dep of byFile.get(file)?.imports ?? []) closure(dep, into);
                    return into;
                };
                const loaded = closure(ctx.chunk.fileName);
                /** @type {Record<string, string[]>} */
                const table = {};
                for (const [module, paths] of Object.entries(routes)) {
                    const id = path.resolve(root, module);
                    const chunk = chunks.find((c) => c.facadeModuleId === id);
                    if (!chunk) continue;
                    const files = [...closure(chunk.fileName)].filter((f) => !loaded.has(f));
                    const meta = files.map((f) => byFile.get(f)?.viteMetadata);
                    const css = meta.flatMap((m) => [...(m?.importedCss ?? [])]);
                    // Assets by URL (maplibre's worker script): fetched into the HTTP cache for whoever loads them.
                    const assets = meta.flatMap((m) => [...(m?.importedAssets ?? [])]);
                    for (const route of paths)
                        table[route] = [...(table[route] ?? []), ...[...files, ...css, ...assets].map((f) => base + f)];
                }
                if (!Object.keys(table).length) return;
                return [
                    {
                        tag: 'script',
                        attrs: { type: 'application/json', id: 'route-preloads' },
                        // JSON inside a script element: '<' escaped so no text can close the element.
                        children: JSON.stringify(table).replace(/</g, '\\u003c'),
                        injectTo: 'head',
                    },
                ];
            },
        },
    };
}
