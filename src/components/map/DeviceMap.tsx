import { useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, Box, Button, Typography } from '@mui/material';
import {
    clusterFeatures,
    DEVICE_MAP_CENTER,
    DEVICE_MAP_ZOOM,
    NO_DATA,
    toFeatureCollection,
    type MapClusterAnswer,
    type MapViewQuery,
} from './deviceLayers';
import {
    useAddDeviceSource,
    useEarlyAsk,
    useFirstRender,
    useLatest,
    useMapInteractions,
    useServerView,
    useSourceData,
    type SourceState,
} from './deviceMapEffects';
import { createGeoApi, type GeoApi } from './geoApi';
import type { DeviceMapProps, DevicePoint } from './types';
import { COLORS } from './style';
import { useBaseMap } from './useBaseMap';

export { MAP_PROPERTY } from './deviceMapEffects';

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
    const clickRef = useLatest(onPointClick);
    const loadRef = useLatest(onLoad);
    const dataRef = useLatest(data);
    const pointsRef = useLatest(shownPoints);
    const source = useRef<SourceState>({ added: false, shown: null });
    const [firstRender, setFirstRender] = useState<number | null>(null);
    const rendered = firstRender !== null;

    useAddDeviceSource(map, loading, browserClusters, dataRef, source);
    useMapInteractions(map, container, pointsRef, clickRef, loadRef);
    const early = useEarlyAsk(container, fetchView, givenLoading, wholeLimit);
    useServerView(map, fetchView, givenLoading, wholeLimit, early, setServed, setFetchError, retryRef);
    useSourceData(map, data, givenLoading, source);
    useFirstRender(map, data, loading, rendered, source, setFirstRender);

    /** Devices the features stand for (a cluster for its count). */
    const represented = useMemo(
        () => data.features.reduce((n, f) => n + (Number(f.properties?.point_count) || 1), 0),
        [data],
    );
    const empty = serverMode ? served?.total === 0 : data.features.length === 0;

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
                <MapStatus>
                    {/*
                     * Still, not a spinner: an animation repaints the page every frame, and on a software GPU those
                     * frames queue with the map's own first one (WebGL set-up, shader compiles) on the same thread.
                     */}
                    <Typography variant="body2" color="text.secondary" sx={statusTextSx}>
                        设备位置加载中…
                    </Typography>
                </MapStatus>
            )}
            {!loading && empty && !error && (
                <MapStatus>
                    <Typography sx={statusTextSx}>{NO_DATA}</Typography>
                </MapStatus>
            )}
            {error && (
                <Alert severity="warning" sx={alertSx}>
                    {error}
                </Alert>
            )}
            {fetchError && !error && (
                <Alert
                    severity="error"
                    sx={alertSx}
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

const statusTextSx = { bgcolor: 'rgba(255,255,255,0.85)', px: 2, py: 1, borderRadius: 1 } as const;
const alertSx = { position: 'absolute', left: 8, right: 8, top: 8 } as const;

/** A note centred over the map that lets clicks through to it. */
function MapStatus({ children }: { children: ReactNode }) {
    return (
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
            {children}
        </Box>
    );
}
