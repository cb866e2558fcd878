/**
 * Performance marks of the map's way to its first frame (performance.mark, read by tests/bench/mapRender.ts): where
 * the seconds of a cold first render go. The first of each name counts; later maps on the page add nothing.
 */
export type MapMark =
    | 'map:style-asked'
    | 'map:style-answered'
    | 'map:creating'
    | 'map:created'
    | 'map:style-loaded'
    | 'map:load'
    | 'map:clusters-asked'
    | 'map:clusters-answered'
    | 'map:first-render';

export function markMap(name: MapMark): void {
    if (typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
    if (performance.getEntriesByName(name, 'mark').length) return;
    performance.mark(name);
}
