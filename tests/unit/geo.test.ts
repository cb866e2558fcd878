import { describe, expect, it } from 'vitest';
import { addressOf, Geocoder, loadGeoData, stem } from '../../server/geo/geocoder';
import { centreOf, contains, distanceToEdges, GridIndex, ringsOf, type BBox } from '../../server/geo/geometry';
import { topologyFeatures, type Topology } from '../../server/geo/topojson';

const square = (x0: number, y0: number, size: number) => [
    [x0, y0],
    [x0 + size, y0],
    [x0 + size, y0 + size],
    [x0, y0 + size],
    [x0, y0],
];

describe('geometry', () => {
    // A 10° square with a 2° hole in the middle.
    const rings = ringsOf({ type: 'Polygon', coordinates: [square(0, 0, 10), square(4, 4, 2)] });

    it('counts a point inside the outer ring and outside the hole as inside', () => {
        expect(contains(rings, 1, 1)).toBe(true);
        expect(contains(rings, 5, 5)).toBe(false);
        expect(contains(rings, 11, 5)).toBe(false);
        expect(contains(rings, -0.5, 5)).toBe(false);
    });

    it('measures metres to the nearest edge', () => {
        // 0.01° of latitude is about 1,106 m.
        expect(distanceToEdges(rings, 5, -0.01)).toBeGreaterThan(1_050);
        expect(distanceToEdges(rings, 5, -0.01)).toBeLessThan(1_150);
        expect(distanceToEdges(rings, 5, 3.99)).toBeLessThan(1_150);
    });

    it('centres a concave shape inside itself', () => {
        // A U shape: its area centroid (x = 5, y ≈ 3.8) falls in the notch, outside the shape.
        const u = ringsOf({
            type: 'Polygon',
            coordinates: [
                [
                    [0, 0],
                    [10, 0],
                    [10, 10],
                    [8, 10],
                    [8, 2],
                    [2, 2],
                    [2, 10],
                    [0, 10],
                    [0, 0],
                ],
            ],
        });
        const [x, y] = centreOf(u);
        expect(contains(u, x, y)).toBe(true);
    });

    it('finds items by the grid cells their boxes cover, each once', () => {
        const items: Array<{ id: string; bbox: BBox }> = [
            { id: 'a', bbox: [0, 0, 3, 3] },
            { id: 'b', bbox: [10, 10, 11, 11] },
        ];
        const index = new GridIndex(items, 1);
        expect(index.query([1, 1, 1, 1]).map((i) => i.id)).toEqual(['a']);
        expect(index.query([0, 0, 20, 20]).map((i) => i.id)).toEqual(['a', 'b']);
        expect(index.query([5, 5, 6, 6])).toEqual([]);
    });
});

describe('TopoJSON decoding', () => {
    it('rebuilds rings from shared, reversed, delta-encoded arcs', () => {
        // Two unit squares sharing the edge x = 1; the right one walks the shared arc backwards (~0).
        const topology: Topology = {
            type: 'Topology',
            transform: { scale: [1, 1], translate: [100, 20] },
            arcs: [
                [
                    [1, 0],
                    [0, 1],
                ],
                [
                    [1, 1],
                    [-1, 0],
                    [0, -1],
                    [1, 0],
                ],
                [
                    [1, 0],
                    [1, 0],
                    [0, 1],
                    [-1, 0],
                ],
            ],
            objects: {
                squares: {
                    type: 'GeometryCollection',
                    geometries: [
                        { type: 'Polygon', arcs: [[0, 1]], properties: { id: 'left' } },
                        { type: 'Polygon', arcs: [[2, ~0]], properties: { id: 'right' } },
                        { type: null, properties: { id: 'empty' } },
                    ],
                },
            },
        };
        const features = topologyFeatures<{ id: string }>(topology, 'squares');
        expect(features.map((f) => f.properties.id)).toEqual(['left', 'right']);
        expect(features[0].geometry.coordinates).toEqual([
            [
                [101, 20],
                [101, 21],
                [100, 21],
                [100, 20],
                [101, 20],
            ],
        ]);
        expect(features[1].geometry.coordinates).toEqual([
            [
                [101, 20],
                [102, 20],
                [102, 21],
                [101, 21],
                [101, 20],
            ],
        ]);
        expect(() => topologyFeatures(topology, 'missing')).toThrow(/missing/);
    });
});

describe('names', () => {
    it('drops the administrative suffix but never the whole name', () => {
        expect(stem('浦东新区')).toBe('浦东');
        expect(stem('上海市')).toBe('上海');
        expect(stem('内蒙古自治区')).toBe('内蒙古');
        expect(stem('市')).toBe('市');
    });

    it('writes a municipality once in an address', () => {
        expect(addressOf({ province: '上海市', city: '上海市', district: '黄浦区' })).toBe('上海市黄浦区');
        expect(addressOf({ province: '江苏省', city: '南京市', district: '玄武区' })).toBe('江苏省南京市玄武区');
        expect(addressOf({ province: '海南省', city: '', district: '陵水黎族自治县' })).toBe('海南省陵水黎族自治县');
    });
});

describe('offline geocoder over the shipped data', () => {
    const geo = new Geocoder(loadGeoData());

    it('holds every province, the cities and the districts', () => {
        expect(geo.data.provinces).toHaveLength(34);
        expect(geo.data.cities.length).toBeGreaterThan(330);
        expect(geo.data.districts.length).toBeGreaterThan(2_800);
        for (const d of geo.data.districts) expect(d.adcode).toMatch(/^\d{6}$/);
    });

    it.each([
        [121.4737, 31.2304, '上海市', '上海市', '黄浦区', '310101'],
        [116.397, 39.909, '北京市', '北京市', '东城区', '110101'],
        [121.6, 31.2, '上海市', '上海市', '浦东新区', '310115'],
        [118.7969, 32.0603, '江苏省', '南京市', '玄武区', '320102'],
        [113.2644, 23.1291, '广东省', '广州市', '越秀区', '440104'],
        [104.08, 30.657, '四川省', '成都市', '锦江区', '510104'],
        // A city without districts answers at city level.
        [113.75, 23.02, '广东省', '东莞市', '', '441900'],
    ])('reverse geocodes %f,%f to %s %s %s (%s)', (lng, lat, province, city, district, adcode) => {
        expect(geo.reverse(lng, lat)).toMatchObject({ province, city, district, adcode, street: '', lng, lat });
    });

    it('refuses the open sea and places outside China', () => {
        expect(geo.reverse(123.5, 30.0)).toBeNull();
        expect(geo.reverse(0, 0)).toBeNull();
        expect(geo.reverse(139.69, 35.69)).toBeNull(); // Tokyo
    });

    it('takes a point just off a simplified coastline within the radius, not beyond it', () => {
        // About 400 m east of 浦东新区's coastline as shipped.
        expect(geo.reverse(121.92, 31.1, 0)).toBeNull();
        expect(geo.reverse(121.92, 31.1, 1000)?.adcode).toBe('310115');
        expect(geo.reverse(121.95, 31.1, 1000)).toBeNull();
    });

    it('finds 浦东新区 by part of its name, centred on its seat', () => {
        const [first] = geo.search('浦东', { city: '上海市' });
        expect(first).toMatchObject({
            name: '浦东新区',
            adcode: '310115',
            level: 'district',
            address: '上海市浦东新区',
        });
        expect(first.lng).toBeCloseTo(121.5677, 3);
        expect(first.lat).toBeCloseTo(31.2459, 3);
    });

    it('ranks areas inside the preferred city first and limits to it on request', () => {
        const anywhere = geo.search('朝阳');
        expect(anywhere.map((h) => h.adcode)).toEqual(expect.arrayContaining(['110105', '211300']));
        const beijing = geo.search('朝阳', { city: '北京' });
        expect(beijing[0].adcode).toBe('110105');
        expect(geo.search('朝阳', { city: '上海市', cityLimit: true })).toEqual([]);
        expect(geo.search('区', { limit: 10 })).toHaveLength(10);
    });

    it('reads a typed address down to its district', () => {
        expect(geo.search('上海市浦东新区')[0].adcode).toBe('310115');
    });

    it('lists a municipality once', () => {
        expect(geo.search('上海').filter((h) => h.name === '上海市')).toHaveLength(1);
    });
});
