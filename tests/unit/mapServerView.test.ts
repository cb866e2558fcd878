import { describe, expect, it, vi } from 'vitest';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { MapClusterAnswer, MapViewQuery } from '../../src/components/map/deviceLayers';
import { startServerView, type EarlyAsk } from '../../src/components/map/serverView';

/** What startServerView reads of a map: its view, and moveend listeners the test fires. */
function fakeMap(view = { zoom: 4, west: 110, south: 30, east: 120, north: 40 }) {
    const listeners = new Set<() => void>();
    const map = {
        view,
        getZoom: () => view.zoom,
        getBounds: () => ({
            getWest: () => view.west,
            getSouth: () => view.south,
            getEast: () => view.east,
            getNorth: () => view.north,
        }),
        on: (_: string, fn: () => void) => listeners.add(fn),
        off: (_: string, fn: () => void) => listeners.delete(fn),
        moveEnd: () => listeners.forEach((fn) => fn()),
        listeners,
    };
    return map;
}
const asMap = (map: ReturnType<typeof fakeMap>) => map as unknown as MapLibreMap;
const answer = (more: Partial<MapClusterAnswer> = {}): MapClusterAnswer => ({
    total: 1,
    clusters: [],
    devices: [],
    ...more,
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('startServerView', () => {
    it('adopts the early ask when the map opens inside it; asks whole only until the first answer', async () => {
        const map = fakeMap();
        const early: EarlyAsk = {
            query: { zoom: 4, bbox: [90, 20, 135, 50], whole: 500 },
            answer: Promise.resolve(answer()),
            controller: new AbortController(),
        };
        const fetchView = vi.fn(async (_query: MapViewQuery) => answer());
        const onAnswer = vi.fn();
        let taken: EarlyAsk | null = early;
        const view = startServerView(asMap(map), {
            fetchView,
            wholeLimit: 500,
            takeEarly: () => {
                const first = taken;
                taken = null;
                return first;
            },
            onAnswer,
            onError: vi.fn(),
        });
        await settle();
        expect(fetchView).not.toHaveBeenCalled();
        expect(onAnswer).toHaveBeenCalledTimes(1);
        map.view.zoom = 6;
        map.moveEnd();
        await settle();
        expect(fetchView).toHaveBeenCalledTimes(1);
        expect(fetchView.mock.calls[0][0].zoom).toBe(6);
        expect(fetchView.mock.calls[0][0].whole).toBeUndefined();
        view.stop();
        expect(map.listeners.size).toBe(0);
    });

    it('a whole answer ends the asking: moves ask nothing more', async () => {
        const map = fakeMap();
        const fetchView = vi.fn(async (query: MapViewQuery) => answer({ whole: query.whole !== undefined }));
        startServerView(asMap(map), {
            fetchView,
            wholeLimit: 500,
            takeEarly: () => null,
            onAnswer: vi.fn(),
            onError: vi.fn(),
        });
        await settle();
        expect(fetchView.mock.calls[0][0].whole).toBe(500);
        expect(map.listeners.size).toBe(0);
    });

    it('a failure is reported, and the same view is asked again on retry', async () => {
        const map = fakeMap();
        const fetchView = vi.fn().mockRejectedValueOnce(new Error('超时')).mockResolvedValue(answer());
        const onError = vi.fn();
        const onAnswer = vi.fn();
        const view = startServerView(asMap(map), { fetchView, takeEarly: () => null, onAnswer, onError });
        await settle();
        expect(onError).toHaveBeenCalledWith('超时');
        view.retry();
        await settle();
        expect(fetchView).toHaveBeenCalledTimes(2);
        expect(onAnswer).toHaveBeenCalledTimes(1);
        view.stop();
    });
});
