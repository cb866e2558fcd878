/**
 * The chunks of the screen the page opens on, fetched and compiled while the console boots (scripts/vite/routePreloads.ts
 * writes them into index.html per route): the dashboard's device map (maplibre, about 1 MB) no longer waits for the
 * console, the sign-in check and the dashboard to render before it is even asked for. Nothing is evaluated here.
 */
export function preloadRoute(pathname: string, doc: Document = document): void {
    const block = doc.getElementById('route-preloads');
    if (!block?.textContent) return;
    let table: Record<string, string[]>;
    try {
        table = JSON.parse(block.textContent) as Record<string, string[]>;
    } catch {
        return;
    }
    const route = pathname.replace(/\/+$/, '') || '/';
    for (const href of table[route] ?? []) {
        const link = doc.createElement('link');
        if (href.endsWith('.js')) {
            link.rel = 'modulepreload';
        } else if (href.endsWith('.css')) {
            link.rel = 'preload';
            link.setAttribute('as', 'style');
        } else {
            // Loaded by URL, not imported (maplibre's worker script): into the HTTP cache, where the worker finds it.
            link.rel = 'prefetch';
        }
        link.href = href;
        doc.head.appendChild(link);
    }
}

if (typeof document !== 'undefined') preloadRoute(location.pathname);
