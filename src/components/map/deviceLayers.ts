import type { Feature, FeatureCollection, Point } from 'geojson';
import type { GeoJSONSourceSpecification, LayerSpecification, StyleSpecification } from 'maplibre-gl';
import { LABEL_FONT, SPEC_ZOOM_OFFSET } from './style';
import type { DevicePoint } from './types';

/** SPEC "Dashboard map": zoom 5 centred on Beijing, clusters gathered over 80 px. */
export const DEVICE_MAP_CENTER: [number, number] = [116.4, 39.9];
export const DEVICE_MAP_ZOOM = 5 + SPEC_ZOOM_OFFSET;
export const CLUSTER_RADIUS = 80;
export const NO_DATA = '暂无数据';

export const SOURCE_ID = 'devices';
export const CLUSTER_LAYER = 'device-clusters';
export const COUNT_LAYER = 'device-cluster-count';
export const POINT_LAYER = 'device-points';

export const STATUS_COLORS: Record<string, string> = {
    ONLINE: '#2fb344',
    OFFLINE: '#8c96a3',
    INACTIVE: '#4e9bf5',
    DISABLE: '#e8684a',
};

export const STATUS_TEXT: Record<string, string> = {
    ONLINE: '在线',
    OFFLINE: '离线',
    INACTIVE: '未激活',
    DISABLE: '已禁用',
};

const valid = (p: DevicePoint): p is DevicePoint & { lng: number; lat: number } =>
    typeof p.lng === 'number' &&
    typeof p.lat === 'number' &&
    Number.isFinite(p.lng) &&
    Number.isFinite(p.lat) &&
    Math.abs(p.lng) <= 180 &&
    Math.abs(p.lat) <= 90 &&
    // 0,0 is what an unset location often arrives as.
    !(p.lng === 0 && p.lat === 0);

/**
 * Devices with a usable location, as a GeoJSON point collection. A plain loop, and only id and status travel to
 * the map's worker (names are looked up on hover): it runs for 100,000 devices.
 */
export function toFeatureCollection(points: readonly DevicePoint[]): FeatureCollection<Point> {
    const features: Array<Feature<Point>> = [];
    for (const p of points) {
        if (!valid(p)) continue;
        features.push({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [p.lng, p.lat] },
            properties: { id: p.id, status: p.status ?? '' },
        });
    }
    return { type: 'FeatureCollection', features };
}

/**
 * The devices source. Clustered in maplibre's worker when the browser holds every device; as given when the server
 * clustered them already (serverClusters).
 */
export function deviceSource(data: FeatureCollection, clustered = true): GeoJSONSourceSpecification {
    if (!clustered) return { type: 'geojson', data };
    // Past zoom 14 (a cluster radius of about 400 m) devices show one by one; fewer levels index faster.
    return { type: 'geojson', data, cluster: true, clusterRadius: CLUSTER_RADIUS, clusterMaxZoom: 14 };
}

/** What the map asks the server for: the floored zoom and a bounding box around the view. */
export interface MapViewQuery {
    zoom: number;
    bbox: [west: number, south: number, east: number, north: number];
    /** Every device at once when at most this many are located (the answer says `whole`): the map's first call. */
    whole?: number;
}

/** The server's answer for a view (GET /api/device/queryLonLatClusters). */
export interface MapClusterAnswer {
    /** Every located device, in view or not. */
    total: number;
    clusters: Array<{ clusterId: number; longitude: number; latitude: number; count: number; expansionZoom: number }>;
    devices: DevicePoint[];
    /** The server's index is catching up with device changes: ask again shortly. */
    rebuilding?: boolean;
    /** Asked with `whole` and few enough devices: `devices` holds every located device, for the map to cluster. */
    whole?: boolean;
}

type Bounds = { getWest(): number; getSouth(): number; getEast(): number; getNorth(): number };
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * The view padded by half its size on every side and snapped outward to half-tile steps: small pans stay inside
 * what was fetched, and neighbouring views ask the same box (the server caches answers by it).
 */
export function viewQuery(map: { getZoom(): number; getBounds(): Bounds }): MapViewQuery {
    const zoom = clamp(Math.floor(map.getZoom()), 0, 22);
    const b = map.getBounds();
    const [w, s, e, n] = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
    const step = 180 / 2 ** zoom;
    const down = (v: number) => Math.floor(v / step) * step;
    const up = (v: number) => Math.ceil(v / step) * step;
    const padX = (e - w) / 2;
    const padY = (n - s) / 2;
    return {
        zoom,
        bbox: [
            round6(clamp(down(w - padX), -180, 180)),
            round6(clamp(down(s - padY), -85, 85)),
            round6(clamp(up(e + padX), -180, 180)),
            round6(clamp(up(n + padY), -85, 85)),
        ],
    };
}

/** maplibre's tiles are 512 px: the world is this many pixels wide at zoom 0. */
const TILE_SIZE = 512;
const mercatorY = (lat: number) => (1 - Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) / 2;
const latitudeOf = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;

/**
 * The view a map of `width` × `height` px will show at `center` and `zoom` (Web Mercator, no rotation or pitch), in
 * the shape viewQuery reads: the first view can be asked for before the map exists.
 */
export function plannedView(center: [number, number], zoom: number, width: number, height: number) {
    const world = TILE_SIZE * 2 ** zoom;
    const halfLng = (width / 2 / world) * 360;
    const y = mercatorY(center[1]);
    const bounds = {
        getWest: () => center[0] - halfLng,
        getEast: () => center[0] + halfLng,
        getNorth: () => latitudeOf(Math.max(0, y - height / 2 / world)),
        getSouth: () => latitudeOf(Math.min(1, y + height / 2 / world)),
    };
    return { getZoom: () => zoom, getBounds: () => bounds };
}

/** The view is inside what `query` fetched, at the same zoom: nothing new to ask. */
export function covers(query: MapViewQuery, map: { getZoom(): number; getBounds(): Bounds }): boolean {
    const b = map.getBounds();
    const [w, s, e, n] = query.bbox;
    return (
        clamp(Math.floor(map.getZoom()), 0, 22) === query.zoom &&
        Math.max(b.getWest(), -180) >= w &&
        Math.max(b.getSouth(), -85) >= s &&
        Math.min(b.getEast(), 180) <= e &&
        Math.min(b.getNorth(), 85) <= n
    );
}

/** As supercluster labels a cluster in the browser, so both modes read the same. */
export const abbreviateCount = (count: number): string | number =>
    count >= 10000 ? `${Math.round(count / 1000)}k` : count >= 1000 ? `${Math.round(count / 100) / 10}k` : count;

/**
 * The server's clusters and devices as the features the layers draw: clusters carry point_count (and its label)
 * as maplibre's own clusters do, plus the zoom where they split.
 */
export function clusterFeatures(answer: MapClusterAnswer | null): FeatureCollection<Point> {
    const features: Array<Feature<Point>> = [];
    for (const c of answer?.clusters ?? []) {
        features.push({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [c.longitude, c.latitude] },
            properties: {
                cluster: true,
                cluster_id: c.clusterId,
                point_count: c.count,
                point_count_abbreviated: abbreviateCount(c.count),
                expansion_zoom: c.expansionZoom,
            },
        });
    }
    return {
        type: 'FeatureCollection',
        features: features.concat(toFeatureCollection(answer?.devices ?? []).features),
    };
}

/**
 * The font stack cluster counts are drawn with: the offline basemap's local fonts, or, on an online style
 * (MAP_STYLE_URL), a stack its own glyph server has (the first one a symbol layer of that style names).
 */
export function countFont(style: StyleSpecification | undefined): string[] {
    for (const layer of style?.layers ?? []) {
        const font = layer.type === 'symbol' ? layer.layout?.['text-font'] : undefined;
        if (Array.isArray(font) && font.length > 0 && font.every((f) => typeof f === 'string')) return font as string[];
    }
    return LABEL_FONT;
}

export const deviceLayers = (font: string[] = LABEL_FONT): LayerSpecification[] => [
    {
        id: CLUSTER_LAYER,
        type: 'circle',
        source: SOURCE_ID,
        filter: ['has', 'point_count'],
        paint: {
            'circle-color': ['step', ['get', 'point_count'], '#4e9bf5', 100, '#f0a23b', 1000, '#e8684a'],
            'circle-radius': ['step', ['get', 'point_count'], 15, 100, 19, 1000, 24, 10000, 29],
            'circle-opacity': 0.9,
            'circle-stroke-color': '#ffffff',
            'circle-stroke-width': 2,
        },
    },
    {
        id: COUNT_LAYER,
        type: 'symbol',
        source: SOURCE_ID,
        filter: ['has', 'point_count'],
        layout: {
            'text-field': ['get', 'point_count_abbreviated'],
            'text-font': font,
            'text-size': 12,
            'text-allow-overlap': true,
        },
        paint: { 'text-color': '#ffffff' },
    },
    {
        id: POINT_LAYER,
        type: 'circle',
        source: SOURCE_ID,
        filter: ['!', ['has', 'point_count']],
        paint: {
            'circle-color': [
                'match',
                ['get', 'status'],
                'ONLINE',
                STATUS_COLORS.ONLINE,
                'INACTIVE',
                STATUS_COLORS.INACTIVE,
                'DISABLE',
                STATUS_COLORS.DISABLE,
                STATUS_COLORS.OFFLINE,
            ],
            'circle-radius': 6,
            'circle-stroke-color': '#ffffff',
            'circle-stroke-width': 1.5,
        },
    },
];
