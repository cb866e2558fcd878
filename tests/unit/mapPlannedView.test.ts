import { describe, expect, it } from 'vitest';
import { covers, plannedView, viewQuery } from '../../src/components/map/deviceLayers';

/** The dashboard asks the server for its first clusters before maplibre exists, from the view the map will show. */
describe('plannedView', () => {
    it('spans the whole Web Mercator world at zoom 0 on one 512-px tile', () => {
        const b = plannedView([0, 0], 0, 512, 512).getBounds();
        expect(b.getWest()).toBeCloseTo(-180, 6);
        expect(b.getEast()).toBeCloseTo(180, 6);
        expect(b.getNorth()).toBeCloseTo(85.0511, 3);
        expect(b.getSouth()).toBeCloseTo(-85.0511, 3);
    });

    it('halves the span with each zoom level and keeps the centre', () => {
        const b = plannedView([116.4, 39.9], 4, 1024, 400).getBounds();
        // 1024 px of a 8192-px world: 45° of longitude.
        expect(b.getEast() - b.getWest()).toBeCloseTo(45, 6);
        expect((b.getEast() + b.getWest()) / 2).toBeCloseTo(116.4, 6);
        // Mercator stretches the north: Beijing sits below the middle of the latitude span.
        expect(b.getNorth() - 39.9).toBeLessThan(39.9 - b.getSouth());
        expect(b.getNorth()).toBeLessThan(85.06);
    });

    it('gives a query that covers the map once it shows that view', () => {
        const view = plannedView([116.4, 39.9], 4, 1400, 460);
        const query = viewQuery(view);
        expect(query.zoom).toBe(4);
        expect(covers(query, view)).toBe(true);
        // A small pan stays inside the padded box; another zoom level does not.
        expect(covers(query, plannedView([118, 40.5], 4, 1400, 460))).toBe(true);
        expect(covers(query, plannedView([116.4, 39.9], 5, 1400, 460))).toBe(false);
    });
});
