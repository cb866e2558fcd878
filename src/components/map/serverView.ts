// Server mode of the device map: the server clusters, and the map asks for what each view shows.
import type { Map as MapLibreMap } from 'maplibre-gl';
import { covers, DEVICE_MAP_CENTER, DEVICE_MAP_ZOOM, plannedView, viewQuery } from './deviceLayers';
import type { MapClusterAnswer, MapViewQuery } from './deviceLayers';
import { markMap } from './marks';

/** Moves closer together than this share one request (the last one wins). */
export const REFETCH_DEBOUNCE_MS = 150;
/** How soon to ask again when the server said its index is catching up with device changes. */
export const REBUILD_RETRY_MS = 1500;

export type FetchView = (query: MapViewQuery, signal: AbortSignal) => Promise<MapClusterAnswer>;

/** A view asked for before the map exists; the map adopts its answer when its own view is inside it. */
export interface EarlyAsk {
    query: MapViewQuery;
    answer: Promise<MapClusterAnswer>;
    controller: AbortController;
}

/** Asks for the view the map will open on, from the container's size alone (plannedView). */
export function askEarly(fetchView: FetchView, width: number, height: number, wholeLimit?: number): EarlyAsk {
    const query = viewQuery(plannedView(DEVICE_MAP_CENTER, DEVICE_MAP_ZOOM, width, height));
    if (wholeLimit !== undefined) query.whole = wholeLimit;
    const controller = new AbortController();
    markMap('map:clusters-asked');
    const answer = fetchView(query, controller.signal);
    // Its failure is reported where the map adopts it.
    answer.catch(() => undefined);
    return { query, answer, controller };
}

export interface ServerViewOptions {
    fetchView: FetchView;
    wholeLimit?: number;
    /** Takes the early ask, once: the first run adopts it when the map's view is inside it. */
    takeEarly: () => EarlyAsk | null;
    onAnswer: (answer: MapClusterAnswer) => void;
    onError: (message: string) => void;
}

/**
 * Asks for the view now, after moves (the first move at once, then at most one request per REFETCH_DEBOUNCE_MS, the
 * last view winning), and again while the server's index catches up. Until an answer came, the request asks for
 * every device if few enough (wholeLimit); once one came whole, nothing more is asked. Answers `retry` (ask again
 * now) and `stop`.
 */
export function startServerView(map: MapLibreMap, options: ServerViewOptions) {
    const { fetchView, wholeLimit } = options;
    let controller: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let fetched: MapViewQuery | undefined;
    let lastAt = -Infinity;
    let answered = false;
    let whole = false;

    const ask = (): Promise<MapClusterAnswer> => {
        const first = options.takeEarly();
        controller?.abort();
        if (first && covers(first.query, map)) {
            fetched = first.query;
            controller = first.controller;
            return first.answer;
        }
        first?.controller.abort();
        fetched = viewQuery(map);
        if (!answered && wholeLimit !== undefined) fetched.whole = wholeLimit;
        controller = new AbortController();
        markMap('map:clusters-asked');
        return fetchView(fetched, controller.signal);
    };

    const run = (force: boolean) => {
        if (whole || (!force && fetched && covers(fetched, map))) return;
        const answer = ask();
        const own = controller!;
        answer.then(
            (answer) => {
                if (own.signal.aborted) return;
                markMap('map:clusters-answered');
                options.onAnswer(answer);
                answered = true;
                if (answer.whole) {
                    whole = true;
                    map.off('moveend', onMoveEnd);
                    return;
                }
                if (answer.rebuilding) timer = setTimeout(() => run(true), REBUILD_RETRY_MS);
            },
            (err: unknown) => {
                if (own.signal.aborted) return;
                fetched = undefined;
                options.onError(err instanceof Error && err.message ? err.message : '网络错误');
            },
        );
    };

    const onMoveEnd = () => {
        clearTimeout(timer);
        const wait = lastAt + REFETCH_DEBOUNCE_MS - performance.now();
        const go = () => {
            lastAt = performance.now();
            run(false);
        };
        if (wait <= 0) go();
        else timer = setTimeout(go, wait);
    };

    run(true);
    map.on('moveend', onMoveEnd);
    return {
        retry: () => run(true),
        stop: () => {
            map.off('moveend', onMoveEnd);
            clearTimeout(timer);
            controller?.abort();
        },
    };
}
