import { useEffect, useRef, useState, type RefObject } from 'react';
import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { GeoApi } from './geoApi';
import { MAP_LOCALE } from './locale';
import { maplibregl } from './maplibre';
import { DISTRICT_MIN_ZOOM, isOfflineStyle, resolveStyle } from './style';

export const WEBGL_MESSAGE = '当前浏览器无法显示地图（需要 WebGL 支持）';

/** The widest box of districts asked for at once; the server refuses more than 12° each way. */
const MAX_SPAN = 12;

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
}

/**
 * A maplibre map in the container, on the configured style (offline outlines unless MAP_STYLE_URL is set).
 * `map` is set once the style has loaded; `error` when the browser cannot draw maps.
 */
export function useBaseMap(container: RefObject<HTMLDivElement | null>, { api, center, zoom }: BaseMapOptions) {
    const [map, setMap] = useState<MapLibreMap | null>(null);
    const [error, setError] = useState<string | null>(null);
    // The first centre and zoom only: later changes are the caller's to fly to.
    const initial = useRef({ center, zoom });

    useEffect(() => {
        let cancelled = false;
        let instance: MapLibreMap | undefined;
        let detach: (() => void) | undefined;
        let observer: ResizeObserver | undefined;
        void resolveStyle(api).then((style) => {
            if (cancelled || !container.current) return;
            try {
                instance = new maplibregl.Map({
                    container: container.current,
                    style,
                    center: initial.current.center,
                    zoom: initial.current.zoom,
                    attributionControl: false,
                    locale: MAP_LOCALE,
                    dragRotate: false,
                    pitchWithRotate: false,
                });
            } catch {
                setError(WEBGL_MESSAGE);
                return;
            }
            const created = instance;
            created.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
            created.touchZoomRotate.disableRotation();
            created.on('load', () => {
                if (cancelled) return;
                if (isOfflineStyle(style)) detach = attachDistrictOutlines(created, api);
                setMap(created);
            });
            // A dialog grows into its size after the map was created: keep the canvas matched to the box.
            if (typeof ResizeObserver !== 'undefined') {
                observer = new ResizeObserver(() => created.resize());
                observer.observe(container.current);
            }
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
