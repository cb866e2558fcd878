import type { FeatureCollection } from 'geojson';
import type { StyleSpecification } from 'maplibre-gl';
import type { GeoApi } from './geoApi';

/**
 * The offline basemap: no tiles, sprite or glyph URLs, only the outlines the platform server ships
 * (GET /api/geo/outlines). Names are drawn by maplibre's local glyph rasteriser from the browser's own fonts
 * (text-font names are CSS families), so no font is fetched either.
 */
export const LABEL_FONT = ['Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', 'sans-serif'];

/**
 * SPEC's zoom levels come from a map provider with 256-px tiles; maplibre's tiles are 512 px, so the same extent
 * is one level lower here.
 */
export const SPEC_ZOOM_OFFSET = -1;

export const COLORS = {
    background: '#e6edf4',
    land: '#fbfaf7',
    province: '#8fa6bf',
    city: '#b7c5d4',
    district: '#ccd6e0',
    label: '#4a5868',
    halo: '#ffffff',
};

export const EMPTY_COLLECTION: FeatureCollection = { type: 'FeatureCollection', features: [] };

/** City outlines and labels are drawn from this zoom on, and fetched the first time the map gets there. */
export const CITY_MIN_ZOOM = 5;

/** District outlines are fetched for the visible box from this zoom on (the server caps the box at 12°). */
export const DISTRICT_MIN_ZOOM = 8;

export function offlineStyle(api: GeoApi): StyleSpecification {
    return {
        version: 8,
        name: '离线底图',
        sources: {
            provinces: { type: 'geojson', data: api.outlineUrl('province') },
            // Filled once the map is zoomed in to CITY_MIN_ZOOM (useBaseMap.ts).
            cities: { type: 'geojson', data: EMPTY_COLLECTION },
            // Filled on demand for the visible box (districts.ts).
            districts: { type: 'geojson', data: EMPTY_COLLECTION },
        },
        // No background layer: the sea is the map container's own colour (COLORS.background) behind a clear canvas.
        // Each layer kind is a shader program compiled on the first frame, 100 ms and more each on a software GPU.
        layers: [
            {
                id: 'province-fill',
                type: 'fill',
                source: 'provinces',
                // The province lines draw the edges; the antialiasing outline would be one more program.
                paint: { 'fill-color': COLORS.land, 'fill-antialias': false },
            },
            {
                id: 'district-line',
                type: 'line',
                source: 'districts',
                minzoom: DISTRICT_MIN_ZOOM,
                paint: { 'line-color': COLORS.district, 'line-width': 1 },
            },
            {
                id: 'city-line',
                type: 'line',
                source: 'cities',
                minzoom: CITY_MIN_ZOOM,
                paint: {
                    'line-color': COLORS.city,
                    'line-width': ['interpolate', ['linear'], ['zoom'], 5, 0.5, 10, 1.5],
                    'line-dasharray': [3, 2],
                },
            },
            {
                id: 'province-line',
                type: 'line',
                source: 'provinces',
                paint: {
                    'line-color': COLORS.province,
                    'line-width': ['interpolate', ['linear'], ['zoom'], 3, 0.8, 10, 2],
                },
            },
            label('province-label', 'provinces', 'name', { maxzoom: 7, size: 12 }),
            label('city-label', 'cities', 'name', {
                minzoom: CITY_MIN_ZOOM + 1,
                maxzoom: DISTRICT_MIN_ZOOM + 1,
                size: 12,
            }),
            label('district-label', 'districts', 'name', { minzoom: DISTRICT_MIN_ZOOM + 1, size: 12 }),
        ],
    };
}

/**
 * The area names join the map after its first frame (useBaseMap.ts), not in it: each Chinese character is drawn by the
 * browser and turned into a glyph on the main thread, and on a loaded machine that held the first frame (outlines and
 * device clusters) back. They are in the style hidden, so the style stays whole and valid.
 */
export const DEFERRED_LABELS = ['province-label', 'city-label', 'district-label'];

/** Shows the area names of the offline style (nothing on an online style, which has no such layers). */
export function showDeferredLabels(map: {
    getLayer(id: string): unknown;
    setLayoutProperty(id: string, name: 'visibility', value: 'visible'): unknown;
}): void {
    for (const id of DEFERRED_LABELS) if (map.getLayer(id)) map.setLayoutProperty(id, 'visibility', 'visible');
}

function label(
    id: string,
    source: string,
    field: string,
    opts: { minzoom?: number; maxzoom?: number; size: number },
): StyleSpecification['layers'][number] {
    return {
        id,
        type: 'symbol',
        source,
        ...(opts.minzoom !== undefined ? { minzoom: opts.minzoom } : {}),
        ...(opts.maxzoom !== undefined ? { maxzoom: opts.maxzoom } : {}),
        // The outlines carry one label point per area (GET /api/geo/outlines): polygons would repeat per tile.
        filter: ['==', ['geometry-type'], 'Point'],
        layout: {
            visibility: DEFERRED_LABELS.includes(id) ? 'none' : 'visible',
            'text-field': ['get', field],
            'text-font': LABEL_FONT,
            'text-size': opts.size,
            'text-max-width': 8,
        },
        paint: { 'text-color': COLORS.label, 'text-halo-color': COLORS.halo, 'text-halo-width': 1.2 },
    };
}

/** MAP_STYLE_URL from the server (an online provider's style), else the offline basemap. */
export async function resolveStyle(api: GeoApi): Promise<StyleSpecification | string> {
    try {
        const { styleUrl } = await api.config();
        if (styleUrl) return styleUrl;
    } catch {
        // The map still works offline when the settings cannot be read.
    }
    return offlineStyle(api);
}

/** Whether the map shows the offline basemap (district outlines are then loaded as the view moves). */
export const isOfflineStyle = (style: StyleSpecification | string) => typeof style !== 'string';
