import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Alert, Box, Button, Typography } from '@mui/material';
import type { GeoJSONSource, Map as MapLibreMap, MapLayerMouseEvent, Popup } from 'maplibre-gl';
import {
    CLUSTER_LAYER,
    clusterFeatures,
    countFont,
    covers,
    DEVICE_MAP_CENTER,
    DEVICE_MAP_ZOOM,
    deviceLayers,
    deviceSource,
    NO_DATA,
    plannedView,
    POINT_LAYER,
    SOURCE_ID,
    STATUS_TEXT,
    toFeatureCollection,
    viewQuery,
    type MapClusterAnswer,
    type MapViewQuery,
} from './deviceLayers';
import { createGeoApi, type GeoApi } from './geoApi';
import { maplibregl } from './maplibre';
import { markMap } from './marks';
import type { DeviceMapProps, DevicePoint } from './types';
import { COLORS, showDeferredLabels } from './style';
import { useBaseMap } from './useBaseMap';

/** The map element carries its maplibre map under this name, for tests and benchmarks (queryRenderedFeatures). */
export const MAP_PROPERTY = 'maplibreMap';

export interface DeviceMapExtraProps {
    api?: GeoApi;
    /**
     * The points are still being fetched: the map (and its basemap) loads meanwhile, a spinner stands where
     * 暂无数据 would, and the first render is not reported until the points are there.
     */
    loading?: boolean;
    /**
     * Clusters computed by the server: the map asks for its view on load and after every move (debounced), draws
     * what comes back, and `points` is not used. For maps of more devices than a browser clusters comfortably.
     */
    fetchView?: (query: MapViewQuery, signal: AbortSignal) => Promise<MapClusterAnswer>;
    /**
     * With fetchView: the first request asks for every device when at most this many are located. An answer that
     * is `whole` is clustered in the browser from then on, and nothing more is asked as the map moves.
     */
    wholeLimit?: number;
}

/** Moves closer together than this share one request (the last one wins). */
const REFETCH_DEBOUNCE_MS = 150;
/** How soon to ask again when the server said its index is catching up with device changes. */
const REBUILD_RETRY_MS = 1500;
const NO_POINTS: readonly DevicePoint[] = [];

/**
 * SPEC "Dashboard map": located devices clustered over 80 px on the offline basemap. Given `points`, clustering runs
 * in maplibre's worker; given `fetchView`, the server clusters and the map fetches what each view shows. Either way
 * a click on a cluster zooms to where it splits, a click on a device reports it.
 *
 * Once the points are drawn for the first time (the devices source loaded and the map idle), the root element
 * gets `data-state="rendered"` and `data-first-render` (performance.now() of that frame, in ms): the marker the
 * end-to-end test and the render benchmark wait for.
 */
export default function DeviceMap({
    points,
    onPointClick,
    height = 400,
    onLoad,
    api: givenApi,
    loading: givenLoading = false,
    fetchView,
    wholeLimit,
}: DeviceMapProps & DeviceMapExtraProps) {
    const api = useMemo(() => givenApi ?? createGeoApi(), [givenApi]);
    const container = useRef<HTMLDivElement | null>(null);
    const { map, error } = useBaseMap(container, {
        api,
        center: DEVICE_MAP_CENTER,
        zoom: DEVICE_MAP_ZOOM,
        labels: 'by-caller',
    });
    const serverMode = fetchView !== undefined;
    const [served, setServed] = useState<MapClusterAnswer | null>(null);
    const [fetchError, setFetchError] = useState<string | null>(null);
    const retryRef = useRef<() => void>(() => undefined);
    /** maplibre clusters the devices: they are all here (given, or a whole answer), not the server's clusters. */
    const browserClusters = !serverMode || served?.whole === true;
    const shownPoints = serverMode ? (served?.devices ?? NO_POINTS) : points;
    const data = useMemo(
        () => (serverMode && !served?.whole ? clusterFeatures(served) : toFeatureCollection(served?.devices ?? points)),
        [serverMode, served, points],
    );
    const loading = givenLoading || (serverMode && !served);
    const clickRef = useRef(onPointClick);
    clickRef.current = onPointClick;
    const loadRef = useRef(onLoad);
    loadRef.current = onLoad;
    const dataRef = useRef(data);
    dataRef.current = data;
    const pointsRef = useRef(shownPoints);
    pointsRef.current = shownPoints;
    /** The collection the source holds, so the first render does not send 100,000 points to the worker twice. */
    const shown = useRef<typeof data | null>(null);
    const [firstRender, setFirstRender] = useState<number | null>(null);

    // The source goes in once the way the devices come is known: the caller's points are there (givenLoading over),
    // or the server's first answer said whether it clusters them (whole or not).
    const sourceAdded = useRef(false);
    useEffect(() => {
        if (!map || loading || sourceAdded.current) return;
        sourceAdded.current = true;
        shown.current = dataRef.current;
        map.addSource(SOURCE_ID, deviceSource(dataRef.current, browserClusters));
        for (const layer of deviceLayers(countFont(map.getStyle()))) map.addLayer(layer);
    }, [map, loading, browserClusters]);

    useEffect(() => {
        if (!map) return;
        let popup: Popup | undefined;
        let byId: { from: readonly DevicePoint[]; map: Map<unknown, DevicePoint> } | undefined;
        const deviceOf = (id: unknown) => {
            if (byId?.from !== pointsRef.current) {
                byId = { from: pointsRef.current, map: new Map(pointsRef.current.map((p) => [p.id, p])) };
            }
            return byId.map.get(id);
        };

        const onCluster = async (e: MapLayerMouseEvent) => {
            const feature = e.features?.[0];
            if (!feature || feature.geometry.type !== 'Point') return;
            // Server clusters carry the zoom where they split; maplibre's own are asked.
            const given = feature.properties.expansion_zoom;
            const zoom =
                given !== undefined
                    ? Number(given)
                    : await map
                          .getSource<GeoJSONSource>(SOURCE_ID)
                          ?.getClusterExpansionZoom(Number(feature.properties.cluster_id));
            if (zoom === undefined) return;
            map.easeTo({ center: feature.geometry.coordinates as [number, number], zoom: zoom + 0.01 });
        };
        const onPoint = (e: MapLayerMouseEvent) => {
            const id = e.features?.[0]?.properties.id;
            if (id !== undefined) clickRef.current?.(id, deviceOf(id));
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
        map.on('click', CLUSTER_LAYER, onCluster);
        map.on('click', POINT_LAYER, onPoint);
        for (const layer of [CLUSTER_LAYER, POINT_LAYER]) {
            map.on('mouseenter', layer, enter);
            map.on('mouseleave', layer, leave);
        }
        const element = container.current as (HTMLDivElement & { [MAP_PROPERTY]?: MapLibreMap }) | null;
        if (element) element[MAP_PROPERTY] = map;
        loadRef.current?.(map);
        return () => {
            if (element) delete element[MAP_PROPERTY];
            popup?.remove();
            map.off('click', CLUSTER_LAYER, onCluster);
            map.off('click', POINT_LAYER, onPoint);
            for (const layer of [CLUSTER_LAYER, POINT_LAYER]) {
                map.off('mouseenter', layer, enter);
                map.off('mouseleave', layer, leave);
            }
        };
    }, [map]);

    // Server mode: the first view is asked for as soon as the container has its size, beside the style config, the
    // map's creation and its basemap, not after them; the map adopts the answer when its view is inside it.
    const early = useRef<{
        query: MapViewQuery;
        answer: Promise<MapClusterAnswer>;
        controller: AbortController;
    } | null>(null);
    useLayoutEffect(() => {
        const box = container.current;
        if (!fetchView || givenLoading || early.current || !box?.clientWidth || !box.clientHeight) return;
        const query = viewQuery(plannedView(DEVICE_MAP_CENTER, DEVICE_MAP_ZOOM, box.clientWidth, box.clientHeight));
        if (wholeLimit !== undefined) query.whole = wholeLimit;
        const controller = new AbortController();
        markMap('map:clusters-asked');
        const answer = fetchView(query, controller.signal);
        // Its failure is reported where the map adopts it.
        answer.catch(() => undefined);
        early.current = { query, answer, controller };
    }, [fetchView, givenLoading, wholeLimit]);
    useEffect(
        () => () => {
            early.current?.controller.abort();
            early.current = null;
        },
        [],
    );

    // Server mode: ask for the view once the map exists, after moves (the first move at once, then at most one request per
    // REFETCH_DEBOUNCE_MS, the last view winning), and again while the server's index catches up. Until an answer
    // came, the request asks for every device if few enough (wholeLimit); once one came whole, nothing more is asked.
    useEffect(() => {
        if (!map || !fetchView || givenLoading) return;
        let controller: AbortController | undefined;
        let timer: ReturnType<typeof setTimeout> | undefined;
        let fetched: MapViewQuery | undefined;
        let lastAt = -Infinity;
        let answered = false;
        let whole = false;
        const run = (force: boolean) => {
            if (whole || (!force && fetched && covers(fetched, map))) return;
            const first = early.current;
            early.current = null;
            controller?.abort();
            let answer: Promise<MapClusterAnswer>;
            if (first && covers(first.query, map)) {
                fetched = first.query;
                controller = first.controller;
                answer = first.answer;
            } else {
                first?.controller.abort();
                fetched = viewQuery(map);
                if (!answered && wholeLimit !== undefined) fetched.whole = wholeLimit;
                controller = new AbortController();
                markMap('map:clusters-asked');
                answer = fetchView(fetched, controller.signal);
            }
            const own = controller;
            answer.then(
                (answer) => {
                    if (own.signal.aborted) return;
                    markMap('map:clusters-answered');
                    setFetchError(null);
                    setServed(answer);
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
                    setFetchError(err instanceof Error && err.message ? err.message : '网络错误');
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
        retryRef.current = () => run(true);
        run(true);
        map.on('moveend', onMoveEnd);
        return () => {
            map.off('moveend', onMoveEnd);
            clearTimeout(timer);
            controller?.abort();
        };
    }, [map, fetchView, givenLoading, wholeLimit]);

    useEffect(() => {
        if (!map || !sourceAdded.current || shown.current === data) return;
        shown.current = data;
        map.getSource<GeoJSONSource>(SOURCE_ID)?.setData(data);
    }, [map, data, givenLoading]);

    const rendered = firstRender !== null;
    /** Devices the features stand for (a cluster for its count). */
    const represented = useMemo(
        () => data.features.reduce((n, f) => n + (Number(f.properties?.point_count) || 1), 0),
        [data],
    );
    const empty = serverMode ? served?.total === 0 : data.features.length === 0;
    useEffect(() => {
        if (!map || loading || rendered || !sourceAdded.current) return;
        const mark = () => {
            if (!map.isSourceLoaded(SOURCE_ID)) return;
            map.off('idle', mark);
            markMap('map:first-render');
            setFirstRender(Math.round(performance.now()));
            // The area names follow the devices' first frame (their glyphs are drawn on this thread).
            showDeferredLabels(map);
        };
        // The points reach the source in the effects above (addSource on load, else setData), each followed by idle.
        map.on('idle', mark);
        return () => {
            map.off('idle', mark);
        };
    }, [map, data, loading, rendered]);

    return (
        <Box
            sx={{ position: 'relative', height, borderRadius: 1, overflow: 'hidden', bgcolor: COLORS.background }}
            data-state={rendered ? 'rendered' : 'loading'}
            data-first-render={firstRender ?? undefined}
            data-points={represented}
        >
            {/* maplibre's own stylesheet makes its container position: relative, so the size is given, not inset. */}
            <Box ref={container} data-testid="device-map" sx={{ width: '100%', height: '100%' }} />
            {loading && !error && (
                <Box
                    role="status"
                    sx={{
                        position: 'absolute',
                        inset: 0,
                        display: 'flex',
                        alignItems: 'center',
                        justifyContent: 'center',
                        pointerEvents: 'none',
                    }}
                >
                    {/*
                     * Still, not a spinner: an animation repaints the page every frame, and on a software GPU those
                     * frames queue with the map's own first one (WebGL set-up, shader compiles) on the same thread.
                     */}
                    <Typography
                        variant="body2"
                        color="text.secondary"
                        sx={{ bgcolor: 'rgba(255,255,255,0.85)', px: 2, py: 1, borderRadius: 1 }}
                    >
                        设备位置加载中…
                    </Typography>
                </Box>
            )}
            {!loading && empty && !error && (
                <Box
                    role="status"
                    sx={{
                        position: 'absolute',
                        inset: 0,
                        display: 'flex',
                        alignItems: 'center',
                        justifyContent: 'center',
                        pointerEvents: 'none',
                    }}
                >
                    <Typography sx={{ bgcolor: 'rgba(255,255,255,0.85)', px: 2, py: 1, borderRadius: 1 }}>
                        {NO_DATA}
                    </Typography>
                </Box>
            )}
            {error && (
                <Alert severity="warning" sx={{ position: 'absolute', left: 8, right: 8, top: 8 }}>
                    {error}
                </Alert>
            )}
            {fetchError && !error && (
                <Alert
                    severity="error"
                    sx={{ position: 'absolute', left: 8, right: 8, top: 8 }}
                    action={
                        <Button color="inherit" size="small" onClick={() => retryRef.current()}>
                            重试
                        </Button>
                    }
                >
                    设备位置加载失败：{fetchError}
                </Alert>
            )}
        </Box>
    );
}
