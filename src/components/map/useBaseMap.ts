import { useEffect, useRef, useState, type RefObject } from 'react';
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { GeoApi } from './geoApi';
import { MAP_LOCALE } from './locale';
import { maplibregl } from './maplibre';
import { markMap } from './marks';
import { CITY_MIN_ZOOM, DISTRICT_MIN_ZOOM, isOfflineStyle, resolveStyle, showDeferredLabels } from './style';

export const WEBGL_MESSAGE = '当前浏览器无法显示地图（需要 WebGL 支持）';

/** The widest box of districts asked for at once; the server refuses more than 12° each way. */
const MAX_SPAN = 12;

/**
 * City outlines are drawn from zoom CITY_MIN_ZOOM on: they are fetched (776 KB of GeoJSON, tiled in the worker) the
 * first time the map is there, so a country-wide first view loads the provinces alone.
 */
export function attachCityOutlines(map: MapLibreMap, api: GeoApi): () => void {
    const update = () => {
        if (map.getZoom() < CITY_MIN_ZOOM) return;
        map.off('moveend', update);
        map.getSource<GeoJSONSource>('cities')?.setData(api.outlineUrl('city'));
    };
    map.on('moveend', update);
    update();
    return () => {
        map.off('moveend', update);
    };
}

/**
 * Loads district outlines for the visible box once the map is zoomed in far enough. The box is rounded out to
 * whole degrees so small pans reuse what was loaded (and the browser's cache answers repeated boxes).
 */
export function attachDistrictOutlines(map: MapLibreMap, api: GeoApi): () => void {
    let loaded: [number, number, number, number] | null = null;
    const update = () => {
        if (map.getZoom() < DISTRICT_MIN_ZOOM) return;
        const b = map.getBounds();
        const view = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
        if (loaded && loaded[0] <= view[0] && loaded[1] <= view[1] && loaded[2] >= view[2] && loaded[3] >= view[3]) {
            return;
        }
        const box: [number, number, number, number] = [
            Math.max(-180, Math.floor(view[0]) - 1),
            Math.max(-90, Math.floor(view[1]) - 1),
            Math.min(180, Math.ceil(view[2]) + 1),
            Math.min(90, Math.ceil(view[3]) + 1),
        ];
        if (box[2] - box[0] > MAX_SPAN || box[3] - box[1] > MAX_SPAN) return;
        loaded = box;
        map.getSource<GeoJSONSource>('districts')?.setData(api.outlineUrl('district', box));
    };
    map.on('moveend', update);
    update();
    return () => {
        map.off('moveend', update);
    };
}

export interface BaseMapOptions {
    api: GeoApi;
    center: [number, number];
    zoom: number;
    /**
     * Who shows the area names (style.ts DEFERRED_LABELS): the map on its first idle (default), or the caller once
     * its own data is drawn (showDeferredLabels), so the names' glyphs never hold that first frame back.
     */
    labels?: 'on-idle' | 'by-caller';
}

/**
 * A maplibre map in the container, on the configured style (offline outlines unless MAP_STYLE_URL is set).
 * `map` is set once the style is parsed ('style.load': its sources and layers exist, their data may still be on the
 * way), so callers add their own sources and start their own requests while the basemap loads, and the first frame
 * draws both; `error` when the browser cannot draw maps.
 */
export function useBaseMap(
    container: RefObject<HTMLDivElement | null>,
    { api, center, zoom, labels = 'on-idle' }: BaseMapOptions,
) {
    const [map, setMap] = useState<MapLibreMap | null>(null);
    const [error, setError] = useState<string | null>(null);
    // The first centre and zoom only: later changes are the caller's to fly to.
    const initial = useRef({ center, zoom, labels });

    useEffect(() => {
        let cancelled = false;
        let instance: MapLibreMap | undefined;
        let detach: (() => void) | undefined;
        let observer: ResizeObserver | undefined;
        const box = container.current;
        if (!box) return;
        // The map (its WebGL context and painter, a few hundred ms on a software GPU) is created while the style
        // config is on its way; the style follows when it answers.
        markMap('map:style-asked');
        const styled = resolveStyle(api);
        // The offline style's province outlines (the default basemap), fetched beside the style config.
        api.warmOutline?.('province');
        let created: MapLibreMap;
        markMap('map:creating');
        try {
            created = instance = new maplibregl.Map({
                container: box,
                center: initial.current.center,
                zoom: initial.current.zoom,
                attributionControl: false,
                locale: MAP_LOCALE,
                dragRotate: false,
                pitchWithRotate: false,
                // The map is idle (and its first render reported) only once symbols have faded in: no fade.
                fadeDuration: 0,
                // The offline style is ours and valid (tests/unit); an online one is its provider's.
                validateStyle: false,
            });
        } catch {
            setError(WEBGL_MESSAGE);
            return;
        }
        markMap('map:created');
        created.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
        created.touchZoomRotate.disableRotation();
        created.on('load', () => markMap('map:load'));
        // A dialog grows into its size after the map was created: keep the canvas matched to the box.
        if (typeof ResizeObserver !== 'undefined') {
            observer = new ResizeObserver(() => created.resize());
            observer.observe(box);
        }
        void styled.then((style) => {
            markMap('map:style-answered');
            if (cancelled) return;
            created.once('style.load', () => {
                markMap('map:style-loaded');
                if (cancelled) return;
                if (isOfflineStyle(style)) {
                    if (initial.current.labels === 'on-idle') {
                        created.once('idle', () => {
                            if (!cancelled) showDeferredLabels(created);
                        });
                    }
                    const cities = attachCityOutlines(created, api);
                    const districts = attachDistrictOutlines(created, api);
                    detach = () => {
                        cities();
                        districts();
                    };
                }
                setMap(created);
            });
            created.setStyle(style);
        });
        return () => {
            cancelled = true;
            observer?.disconnect();
            detach?.();
            instance?.remove();
            setMap(null);
        };
    }, [api, container]);

    return { map, error };
}
