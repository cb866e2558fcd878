// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { preloadRoute } from '../../src/boot/routePreloads';

const TABLE = {
    '/': ['/assets/LocationMap-a.js', '/assets/useBaseMap-b.js', '/assets/useBaseMap-c.css', '/assets/worker-d.mjs'],
    '/introduce': [
        '/assets/LocationMap-a.js',
        '/assets/useBaseMap-b.js',
        '/assets/useBaseMap-c.css',
        '/assets/worker-d.mjs',
    ],
};

function page(table: unknown = TABLE) {
    document.head.innerHTML = `<script type="application/json" id="route-preloads">${JSON.stringify(table)}</script>`;
}
const links = () =>
    [...document.head.querySelectorAll('link')].map((l) => [l.rel, l.getAttribute('href'), l.getAttribute('as')]);

/** The boot adds the preloads index.html lists for the route the page opened on (scripts/vite/routePreloads.ts). */
describe('route preloads at boot', () => {
    afterEach(() => {
        document.head.innerHTML = '';
    });

    it('preloads the map chunks as modules, its stylesheet as a style and its worker script into the cache', () => {
        page();
        preloadRoute('/introduce/');
        expect(links()).toEqual([
            ['modulepreload', '/assets/LocationMap-a.js', null],
            ['modulepreload', '/assets/useBaseMap-b.js', null],
            ['preload', '/assets/useBaseMap-c.css', 'style'],
            ['prefetch', '/assets/worker-d.mjs', null],
        ]);
        document.head.querySelectorAll('link').forEach((l) => l.remove());
        preloadRoute('/');
        expect(links()).toHaveLength(4);
    });

    it('adds nothing on other routes, without the block (the dev server) or when it does not parse', () => {
        page();
        preloadRoute('/product');
        expect(links()).toEqual([]);
        document.head.innerHTML = '';
        preloadRoute('/introduce');
        expect(links()).toEqual([]);
        document.head.innerHTML = '<script type="application/json" id="route-preloads">{not json</script>';
        preloadRoute('/introduce');
        expect(links()).toEqual([]);
    });
});
