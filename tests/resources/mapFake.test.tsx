import { useRef } from 'react';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { GeoApi } from '../../src/components/map/geoApi';
import { useBaseMap } from '../../src/components/map/useBaseMap';
import { FakeMap } from '../fakes/maplibre';

/**
 * The resources project draws every map on the fake (vite.config.ts, fakeMaplibre): files share a worker's module
 * cache there, so a map module that one file had loaded with the real library would show "no WebGL" in a later
 * file's map, whatever that file mocks.
 */
const api: GeoApi = {
    config: async () => ({ styleUrl: 'http://127.0.0.1/style.json' }),
    reverse: async () => ({}) as never,
    search: async () => [],
    outlineUrl: (level) => `http://127.0.0.1/outline/${level}`,
};

function BaseMap() {
    const box = useRef<HTMLDivElement>(null);
    const { error } = useBaseMap(box, { api, center: [116.4, 39.9], zoom: 4 });
    return <div ref={box}>{error}</div>;
}

describe('maps in the resources project', () => {
    it('are drawn on the fake map, with no test file mocking the library', () => {
        FakeMap.last = undefined;
        const { container } = render(<BaseMap />);
        expect(FakeMap.last).toBeInstanceOf(FakeMap);
        expect(FakeMap.last!.options.center).toEqual([116.4, 39.9]);
        expect(container).not.toHaveTextContent('WebGL');
    });
});
