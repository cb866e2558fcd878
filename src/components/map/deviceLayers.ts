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

export function deviceSource(data: FeatureCollection): GeoJSONSourceSpecification {
    // Past zoom 14 (a cluster radius of about 400 m) devices show one by one; fewer levels index faster.
    return { type: 'geojson', data, cluster: true, clusterRadius: CLUSTER_RADIUS, clusterMaxZoom: 14 };
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
