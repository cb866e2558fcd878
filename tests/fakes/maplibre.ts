import { vi } from 'vitest';

/**
 * jsdom has no WebGL: in the resources project every import of src/components/map/maplibre is this module (vite.config.ts,
 * fakeMaplibre), which keeps what the components give it (options, style, sources, layers) and lets a test fire map
 * events, on a layer or not. A unit test replaces the module the same way by hand:
 *
 *     vi.mock('../../src/components/map/maplibre', async () => (await import('../fakes/maplibre')).maplibreModule);
 *
 * The real map is proven in Chromium (tests/e2e/*map*, dashboard).
 */
type Handler = (e: unknown) => unknown;

interface FakeSource {
    spec: Record<string, unknown>;
    /** What the source was given last (its spec's data, then each setData). */
    data: unknown;
    setData: ReturnType<typeof vi.fn>;
}

export class FakeMap {
    /** The map created last. */
    static last: FakeMap | undefined;
    /** What getBounds answers (west, south, east, north); a test may set another view. */
    static bounds: [number, number, number, number] = [121.3, 31.1, 121.9, 31.3];

    handlers: Array<{ event: string; layer?: string; fn: Handler }> = [];
    sources = new Map<string, FakeSource>();
    layers: string[] = [];
    /** The geo picker's district outlines, which come with the style rather than through addSource. */
    districts = { spec: {}, data: undefined as unknown, setData: vi.fn() };
    flyTo = vi.fn();
    easeTo = vi.fn();
    canvas = { style: { cursor: '' } };
    touchZoomRotate = { disableRotation() {} };
    style: unknown;

    constructor(readonly options: Record<string, unknown>) {
        FakeMap.last = this;
    }

    /** As maplibre: the style loads a frame later ('style.load'), then the first frame ('load'). */
    setStyle(style: unknown) {
        this.style = style;
        setTimeout(() => void this.fire('style.load', {}).then(() => this.fire('load', {})), 0);
        return this;
    }
    getStyle() {
        return this.style;
    }
    once(event: string, fn: Handler) {
        const wrapped: Handler = (e) => {
            this.off(event, wrapped);
            return fn(e);
        };
        return this.on(event, wrapped);
    }
    on(event: string, layerOrFn: string | Handler, fn?: Handler) {
        if (typeof layerOrFn === 'string') this.handlers.push({ event, layer: layerOrFn, fn: fn! });
        else this.handlers.push({ event, fn: layerOrFn });
        return this;
    }
    off(event: string, layerOrFn: string | Handler, fn?: Handler) {
        const target = typeof layerOrFn === 'string' ? fn : layerOrFn;
        this.handlers = this.handlers.filter((h) => !(h.event === event && h.fn === target));
        return this;
    }
    /** Runs the handlers of `event` (on `layer`, or those given without a layer). */
    fire(event: string, e: unknown, layer?: string) {
        return Promise.all(this.handlers.filter((h) => h.event === event && h.layer === layer).map((h) => h.fn(e)));
    }
    addControl() {}
    getCanvas() {
        return this.canvas;
    }
    getZoom() {
        return Number(this.options.zoom ?? 12);
    }
    getCenter() {
        return this.options.center;
    }
    getBounds() {
        const [w, s, e, n] = FakeMap.bounds;
        return { getWest: () => w, getSouth: () => s, getEast: () => e, getNorth: () => n };
    }
    addSource(id: string, spec: Record<string, unknown>) {
        const source: FakeSource = { spec, data: spec.data, setData: vi.fn((data: unknown) => (source.data = data)) };
        this.sources.set(id, source);
    }
    getSource(id: string) {
        const source = this.sources.get(id) ?? (id === 'districts' ? this.districts : undefined);
        // maplibre's own clusters split one zoom per cluster id further in (a value the tests can tell apart).
        return source && Object.assign(source, { getClusterExpansionZoom: async (clusterId: number) => 6 + clusterId });
    }
    isSourceLoaded() {
        return true;
    }
    addLayer(layer: { id: string }) {
        this.layers.push(layer.id);
    }
    getLayer(id: string) {
        return this.layers.includes(id) ? { id } : undefined;
    }
    setLayoutProperty() {}
    resize() {}
    remove() {}
}

export class FakeMarker {
    /** Where the last marker was put. */
    static lngLat: unknown;
    setLngLat(p: unknown) {
        FakeMarker.lngLat = p;
        return this;
    }
    addTo() {
        return this;
    }
    remove() {}
}

/** What src/components/map/maplibre exports, faked. */
export const maplibreModule = {
    maplibregl: { Map: FakeMap, Marker: FakeMarker, NavigationControl: class {}, Popup: class {} },
};
export const { maplibregl } = maplibreModule;
