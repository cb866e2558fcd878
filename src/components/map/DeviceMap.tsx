import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert, Box, CircularProgress, Typography } from '@mui/material';
import type { GeoJSONSource, Map as MapLibreMap, MapLayerMouseEvent, Popup } from 'maplibre-gl';
import {
    CLUSTER_LAYER,
    countFont,
    DEVICE_MAP_CENTER,
    DEVICE_MAP_ZOOM,
    deviceLayers,
    deviceSource,
    NO_DATA,
    POINT_LAYER,
    SOURCE_ID,
    STATUS_TEXT,
    toFeatureCollection,
} from './deviceLayers';
import { createGeoApi, type GeoApi } from './geoApi';
import { maplibregl } from './maplibre';
import type { DeviceMapProps, DevicePoint } from './types';
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
}

/**
 * SPEC "Dashboard map": located devices clustered over 80 px on the offline basemap. Clustering runs in maplibre's
 * worker, so 100,000 devices stay smooth; a click on a cluster zooms to where it splits, a click on a device
 * reports its id.
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
    loading = false,
}: DeviceMapProps & DeviceMapExtraProps) {
    const api = useMemo(() => givenApi ?? createGeoApi(), [givenApi]);
    const container = useRef<HTMLDivElement | null>(null);
    const { map, error } = useBaseMap(container, { api, center: DEVICE_MAP_CENTER, zoom: DEVICE_MAP_ZOOM });
    const data = useMemo(() => toFeatureCollection(points), [points]);
    const clickRef = useRef(onPointClick);
    clickRef.current = onPointClick;
    const loadRef = useRef(onLoad);
    loadRef.current = onLoad;
    const dataRef = useRef(data);
    dataRef.current = data;
    const pointsRef = useRef(points);
    pointsRef.current = points;
    /** The collection the source holds, so the first render does not send 100,000 points to the worker twice. */
    const shown = useRef<typeof data | null>(null);
    const [firstRender, setFirstRender] = useState<number | null>(null);

    useEffect(() => {
        if (!map) return;
        shown.current = dataRef.current;
        map.addSource(SOURCE_ID, deviceSource(dataRef.current));
        for (const layer of deviceLayers(countFont(map.getStyle()))) map.addLayer(layer);
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
            const source = map.getSource<GeoJSONSource>(SOURCE_ID);
            const zoom = await source?.getClusterExpansionZoom(Number(feature.properties.cluster_id));
            if (zoom === undefined) return;
            map.easeTo({ center: feature.geometry.coordinates as [number, number], zoom: zoom + 0.01 });
        };
        const onPoint = (e: MapLayerMouseEvent) => {
            const id = e.features?.[0]?.properties.id;
            if (id !== undefined) clickRef.current?.(id);
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

    useEffect(() => {
        if (!map || shown.current === data) return;
        shown.current = data;
        map.getSource<GeoJSONSource>(SOURCE_ID)?.setData(data);
    }, [map, data]);

    const rendered = firstRender !== null;
    useEffect(() => {
        if (!map || loading || rendered) return;
        const mark = () => {
            if (!map.isSourceLoaded(SOURCE_ID)) return;
            map.off('idle', mark);
            setFirstRender(Math.round(performance.now()));
        };
        // The points reach the source in the effects above (addSource on load, else setData), each followed by idle.
        map.on('idle', mark);
        return () => {
            map.off('idle', mark);
        };
    }, [map, data, loading, rendered]);

    return (
        <Box
            sx={{ position: 'relative', height, borderRadius: 1, overflow: 'hidden', bgcolor: '#e6edf4' }}
            data-state={rendered ? 'rendered' : 'loading'}
            data-first-render={firstRender ?? undefined}
            data-points={data.features.length}
        >
            {/* maplibre's own stylesheet makes its container position: relative, so the size is given, not inset. */}
            <Box ref={container} data-testid="device-map" sx={{ width: '100%', height: '100%' }} />
            {loading && !error && (
                <Box
                    sx={{
                        position: 'absolute',
                        inset: 0,
                        display: 'flex',
                        alignItems: 'center',
                        justifyContent: 'center',
                        pointerEvents: 'none',
                    }}
                >
                    <CircularProgress size={32} aria-label="设备位置加载中" />
                </Box>
            )}
            {!loading && data.features.length === 0 && !error && (
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
        </Box>
    );
}
