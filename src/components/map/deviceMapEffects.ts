// The device map's effects, each its own hook; DeviceMap calls them in this order (effects run in call order).
import { useEffect, useLayoutEffect, useRef, type MutableRefObject, type RefObject } from 'react';
import type { GeoJSONSource, Map as MapLibreMap, MapLayerMouseEvent, Popup } from 'maplibre-gl';
import {
    CLUSTER_LAYER,
    countFont,
    deviceLayers,
    deviceSource,
    POINT_LAYER,
    SOURCE_ID,
    STATUS_TEXT,
} from './deviceLayers';
import type { MapClusterAnswer, toFeatureCollection } from './deviceLayers';
import { maplibregl } from './maplibre';
import { markMap } from './marks';
import { askEarly, startServerView, type EarlyAsk, type FetchView } from './serverView';
import { showDeferredLabels } from './style';
import type { DeviceMapProps, DevicePoint } from './types';

/** The map element carries its maplibre map under this name, for tests and benchmarks (queryRenderedFeatures). */
export const MAP_PROPERTY = 'maplibreMap';

type Collection = ReturnType<typeof toFeatureCollection>;

/** The value of the last render, for handlers registered once. */
export function useLatest<T>(value: T): MutableRefObject<T> {
    const ref = useRef(value);
    ref.current = value;
    return ref;
}

/**
 * The devices source as the map holds it: whether it was added, and the collection it holds (so the first render
 * does not send 100,000 points to the worker twice).
 */
export interface SourceState {
    added: boolean;
    shown: Collection | null;
}

/**
 * The source goes in once the way the devices come is known: the caller's points are there (loading over), or the
 * server's first answer said whether it clusters them (whole or not).
 */
export function useAddDeviceSource(
    map: MapLibreMap | null,
    loading: boolean,
    browserClusters: boolean,
    data: MutableRefObject<Collection>,
    source: MutableRefObject<SourceState>,
) {
    useEffect(() => {
        if (!map || loading || source.current.added) return;
        source.current.added = true;
        source.current.shown = data.current;
        map.addSource(SOURCE_ID, deviceSource(data.current, browserClusters));
        for (const layer of deviceLayers(countFont(map.getStyle()))) map.addLayer(layer);
    }, [map, loading, browserClusters, data, source]);
}

/** A device's point by id, the index rebuilt when the points change. */
function deviceIndex(points: MutableRefObject<readonly DevicePoint[]>) {
    let byId: { from: readonly DevicePoint[]; map: Map<unknown, DevicePoint> } | undefined;
    return (id: unknown) => {
        if (byId?.from !== points.current) {
            byId = { from: points.current, map: new Map(points.current.map((p) => [p.id, p])) };
        }
        return byId.map.get(id);
    };
}

type LayerHandler = ['click' | 'mouseenter' | 'mouseleave', string, (e: MapLayerMouseEvent) => void];

/** Registers the handlers on their layers; answers the function that removes them. */
function listen(map: MapLibreMap, handlers: LayerHandler[]): () => void {
    for (const [type, layer, handler] of handlers) map.on(type, layer, handler);
    return () => {
        for (const [type, layer, handler] of handlers) map.off(type, layer, handler);
    };
}

/** A click on a cluster zooms to where it splits: server clusters carry that zoom, maplibre's own are asked. */
async function zoomIntoCluster(map: MapLibreMap, e: MapLayerMouseEvent) {
    const feature = e.features?.[0];
    if (!feature || feature.geometry.type !== 'Point') return;
    const given = feature.properties.expansion_zoom;
    const zoom =
        given !== undefined
            ? Number(given)
            : await map
                  .getSource<GeoJSONSource>(SOURCE_ID)
                  ?.getClusterExpansionZoom(Number(feature.properties.cluster_id));
    if (zoom === undefined) return;
    map.easeTo({ center: feature.geometry.coordinates as [number, number], zoom: zoom + 0.01 });
}

/**
 * Clicks (a cluster zooms in, a device is reported), a pointer and a name popup over a device, the map on its
 * element (MAP_PROPERTY) and onLoad; all once the map exists.
 */
export function useMapInteractions(
    map: MapLibreMap | null,
    container: RefObject<HTMLDivElement | null>,
    points: MutableRefObject<readonly DevicePoint[]>,
    onPointClick: MutableRefObject<DeviceMapProps['onPointClick']>,
    onLoad: MutableRefObject<DeviceMapProps['onLoad']>,
) {
    useEffect(() => {
        if (!map) return;
        let popup: Popup | undefined;
        const deviceOf = deviceIndex(points);
        const onCluster = (e: MapLayerMouseEvent) => zoomIntoCluster(map, e);
        const onPoint = (e: MapLayerMouseEvent) => {
            const id = e.features?.[0]?.properties.id;
            if (id !== undefined) onPointClick.current?.(id, deviceOf(id));
        };
        const enter = (e: MapLayerMouseEvent) => {
            map.getCanvas().style.cursor = 'pointer';
            const feature = e.features?.[0];
            if (feature?.layer.id !== POINT_LAYER || feature.geometry.type !== 'Point') return;
            const { id, status } = feature.properties as { id: unknown; status: string };
            const el = document.createElement('div');
            el.textContent = `${deviceOf(id)?.name ?? id}${STATUS_TEXT[status] ? `（${STATUS_TEXT[status]}）` : ''}`;
            popup = new maplibregl.Popup({ closeButton: false, offset: 10 })
                .setLngLat(feature.geometry.coordinates as [number, number])
                .setDOMContent(el)
                .addTo(map);
        };
        const leave = () => {
            map.getCanvas().style.cursor = '';
            popup?.remove();
        };
        const unlisten = listen(map, [
            ['click', CLUSTER_LAYER, onCluster],
            ['click', POINT_LAYER, onPoint],
            ...[CLUSTER_LAYER, POINT_LAYER].flatMap((layer): LayerHandler[] => [
                ['mouseenter', layer, enter],
                ['mouseleave', layer, leave],
            ]),
        ]);
        const element = container.current as (HTMLDivElement & { [MAP_PROPERTY]?: MapLibreMap }) | null;
        if (element) element[MAP_PROPERTY] = map;
        onLoad.current?.(map);
        return () => {
            if (element) delete element[MAP_PROPERTY];
            popup?.remove();
            unlisten();
        };
    }, [map, container, points, onPointClick, onLoad]);
}

/**
 * Server mode: the first view is asked for as soon as the container has its size, beside the style config, the
 * map's creation and its basemap, not after them. Aborted on unmount unless the map adopted it.
 */
export function useEarlyAsk(
    container: RefObject<HTMLDivElement | null>,
    fetchView: FetchView | undefined,
    waiting: boolean,
    wholeLimit: number | undefined,
): MutableRefObject<EarlyAsk | null> {
    const early = useRef<EarlyAsk | null>(null);
    useLayoutEffect(() => {
        const box = container.current;
        if (!fetchView || waiting || early.current || !box?.clientWidth || !box.clientHeight) return;
        early.current = askEarly(fetchView, box.clientWidth, box.clientHeight, wholeLimit);
    }, [container, fetchView, waiting, wholeLimit]);
    useEffect(
        () => () => {
            early.current?.controller.abort();
            early.current = null;
        },
        [],
    );
    return early;
}

/**
 * Server mode: the views asked for while the map lives (serverView.ts); `retry` asks again after a failure. The
 * setters and refs are stable: only the map, the call and its options start it again.
 */
export function useServerView(
    map: MapLibreMap | null,
    fetchView: FetchView | undefined,
    waiting: boolean,
    wholeLimit: number | undefined,
    early: MutableRefObject<EarlyAsk | null>,
    setServed: (answer: MapClusterAnswer) => void,
    setFetchError: (message: string | null) => void,
    retry: MutableRefObject<() => void>,
) {
    useEffect(() => {
        if (!map || !fetchView || waiting) return;
        const takeEarly = () => {
            const first = early.current;
            early.current = null;
            return first;
        };
        const onAnswer = (answer: MapClusterAnswer) => {
            setFetchError(null);
            setServed(answer);
        };
        const view = startServerView(map, { fetchView, wholeLimit, takeEarly, onAnswer, onError: setFetchError });
        retry.current = view.retry;
        return view.stop;
    }, [map, fetchView, waiting, wholeLimit, early, setServed, setFetchError, retry]);
}

/** Later collections reach the source by setData (the first went in with addSource). */
export function useSourceData(
    map: MapLibreMap | null,
    data: Collection,
    waiting: boolean,
    source: MutableRefObject<SourceState>,
) {
    useEffect(() => {
        if (!map || !source.current.added || source.current.shown === data) return;
        source.current.shown = data;
        map.getSource<GeoJSONSource>(SOURCE_ID)?.setData(data);
        // Checked again when the caller's loading changes, as well as on new data.
    }, [map, data, waiting, source]);
}

/**
 * The first frame with the devices drawn (their source loaded, the map idle): its time (performance.now(), ms)
 * goes to `onRendered`, and the area names follow it (their glyphs are drawn on this thread).
 */
export function useFirstRender(
    map: MapLibreMap | null,
    data: Collection,
    loading: boolean,
    rendered: boolean,
    source: MutableRefObject<SourceState>,
    onRendered: (at: number) => void,
) {
    useEffect(() => {
        if (!map || loading || rendered || !source.current.added) return;
        const mark = () => {
            if (!map.isSourceLoaded(SOURCE_ID)) return;
            map.off('idle', mark);
            markMap('map:first-render');
            onRendered(Math.round(performance.now()));
            showDeferredLabels(map);
        };
        // The points reach the source in the effects above (addSource on load, else setData), each followed by idle.
        map.on('idle', mark);
        return () => {
            map.off('idle', mark);
        };
    }, [map, data, loading, rendered, source, onRendered]);
}
