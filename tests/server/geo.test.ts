import { gunzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAmapGeocoder } from '../../server/geo/amap';
import { loadGeoConfig } from '../../server/geo/config';
import { createGeoRouter } from '../../server/geo/router';
import { fail } from '../../server/http/envelope';
import { ApiError } from '../../server/http/errors';
import { spec } from './support';

/** The router as app.ts mounts it: under /api/geo, business failures answered by the app's error handler. */
function geoApp(styleUrl?: string) {
    const app = new Hono();
    app.onError((err, c) => (err instanceof ApiError ? fail(c, err.status, err.message) : fail(c, 500, '系统错误')));
    app.route('/api/geo', createGeoRouter({ config: { map: { styleUrl } } }));
    return app;
}

const app = geoApp();
const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { headers });
    return { res, status: res.status, body: (await res.clone().json()) as Record<string, unknown> };
};

describe('GET /api/geo/reverse', () => {
    it('answers the address of a point in the general envelope', async () => {
        const { status, body } = await get('/api/geo/reverse?lng=121.4737&lat=31.2304');
        expect(status).toBe(200);
        expect(body).toEqual({
            code: 200,
            msg: 'success',
            data: {
                lng: 121.4737,
                lat: 31.2304,
                province: '上海市',
                city: '上海市',
                district: '黄浦区',
                street: '',
                adcode: '310101',
                address: '上海市黄浦区',
            },
        });
        expect((await get('/api/geo/reverse?lng=116.397&lat=39.909')).body.data).toMatchObject({
            district: '东城区',
            adcode: '110101',
        });
    });

    it('refuses a point in the sea', async () => {
        const { status, body } = await get('/api/geo/reverse?lng=123.5&lat=30');
        expect(status).toBe(404);
        expect(body).toEqual({ code: 404, msg: '该位置不在支持的范围内' });
    });

    it('uses the radius (default 1000 m) for points just off a coastline', async () => {
        expect((await get('/api/geo/reverse?lng=121.92&lat=31.1')).status).toBe(200);
        expect((await get('/api/geo/reverse?lng=121.92&lat=31.1&radius=0')).status).toBe(404);
    });

    it.each([
        ['lat=31.2', '经度不能为空'],
        ['lng=121.4', '纬度不能为空'],
        ['lng=abc&lat=31.2', '经度必须是-180~180之间的数字'],
        ['lng=121.4&lat=95', '纬度必须是-90~90之间的数字'],
        ['lng=121.4&lat=31.2&radius=5000', '半径必须是0~3000之间的整数（米）'],
        ['lng=121.4&lat=31.2&radius=-1', '半径必须是0~3000之间的整数（米）'],
    ])('refuses %s with its message', async (query, msg) => {
        const { status, body } = await get(`/api/geo/reverse?${query}`);
        expect(status).toBe(400);
        expect(body).toEqual({ code: 400, msg });
    });
});

describe('GET /api/geo/search', () => {
    it('finds 浦东新区 in 上海市 with its centre', async () => {
        const { status, body } = await get(`/api/geo/search?keyword=${encodeURIComponent('浦东')}&city=上海市`);
        expect(status).toBe(200);
        const list = (body.data as { list: Array<Record<string, unknown>> }).list;
        expect(list[0]).toMatchObject({ name: '浦东新区', adcode: '310115', level: 'district', city: '上海市' });
        expect(list[0].lng).toBeCloseTo(121.5677, 3);
        expect(list[0].lat).toBeCloseTo(31.2459, 3);
    });

    it('answers at most 10 and limits to the city on request', async () => {
        const many = await get(`/api/geo/search?keyword=${encodeURIComponent('区')}`);
        expect((many.body.data as { list: unknown[] }).list).toHaveLength(10);
        const limited = await get(`/api/geo/search?keyword=${encodeURIComponent('朝阳')}&city=上海市&citylimit=true`);
        expect(limited.body).toEqual({ code: 200, msg: 'success', data: { list: [] } });
    });

    it.each([
        ['', '请输入搜索关键字'],
        [`keyword=${'长'.repeat(51)}`, '搜索关键字不能超过50个字符'],
        [`keyword=a&city=${encodeURIComponent('火星')}`, '不支持的城市：火星'],
        ['keyword=a&citylimit=true', '限定城市搜索时请提供城市'],
    ])('refuses "%s" with its message', async (query, msg) => {
        const { status, body } = await get(`/api/geo/search?${query}`);
        expect(status).toBe(400);
        expect(body).toEqual({ code: 400, msg });
    });
});

describe('GET /api/geo/outlines', () => {
    it('answers province outlines as GeoJSON, cacheable, gzipped on request, 304 when unchanged', async () => {
        const plain = await app.request('/api/geo/outlines?level=province');
        expect(plain.status).toBe(200);
        expect(plain.headers.get('content-type')).toContain('application/geo+json');
        expect(plain.headers.get('cache-control')).toBe('private, max-age=86400');
        const json = (await plain.json()) as {
            type: string;
            features: Array<{ properties: { kind: string; adcode: string }; geometry: { type: string } }>;
        };
        expect(json.type).toBe('FeatureCollection');
        const areas = json.features.filter((f) => f.properties.kind === 'area');
        expect(areas).toHaveLength(34);
        expect(areas.map((f) => f.properties.adcode)).toContain('310000');
        expect(areas.every((f) => /Polygon$/.test(f.geometry.type))).toBe(true);
        // One label point per province at its seat (上海 at 121.47, 31.23).
        const labels = json.features.filter((f) => f.properties.kind === 'label');
        expect(labels).toHaveLength(34);
        expect(labels.find((f) => f.properties.adcode === '310000')?.geometry).toEqual({
            type: 'Point',
            coordinates: [121.4726, 31.2317],
        });

        const zipped = await app.request('/api/geo/outlines?level=province', {
            headers: { 'accept-encoding': 'gzip, deflate' },
        });
        expect(zipped.headers.get('content-encoding')).toBe('gzip');
        const bytes = Buffer.from(await zipped.arrayBuffer());
        expect(JSON.parse(gunzipSync(bytes).toString('utf8'))).toEqual(json);
        expect(bytes.length).toBeLessThan(JSON.stringify(json).length / 2);

        const etag = plain.headers.get('etag')!;
        const again = await app.request('/api/geo/outlines?level=province', { headers: { 'if-none-match': etag } });
        expect(again.status).toBe(304);
    });

    it('answers city outlines and the districts in a box', async () => {
        const cities = (await (await app.request('/api/geo/outlines?level=city')).json()) as {
            features: Array<{ properties: { kind: string } }>;
        };
        expect(cities.features.filter((f) => f.properties.kind === 'area').length).toBeGreaterThan(330);
        const res = await app.request('/api/geo/outlines?level=district&bbox=121.4,31.1,121.6,31.3');
        const districts = (await res.json()) as {
            features: Array<{ properties: { kind: string; adcode: string; name: string } }>;
        };
        const names = districts.features.filter((f) => f.properties.kind === 'area').map((f) => f.properties.name);
        expect(names).toEqual(expect.arrayContaining(['黄浦区', '浦东新区']));
        expect(names).not.toContain('东城区');
    });

    it.each([
        ['level=country', 'level 必须是 province、city 或 district'],
        ['level=district', 'bbox 必须是“最小经度,最小纬度,最大经度,最大纬度”'],
        ['level=district&bbox=1,2,3', 'bbox 必须是“最小经度,最小纬度,最大经度,最大纬度”'],
        ['level=district&bbox=122,31,121,32', 'bbox 必须是“最小经度,最小纬度,最大经度,最大纬度”'],
        ['level=district&bbox=100,20,120,40', 'bbox 范围过大（每边不超过12度），请放大地图后再试'],
    ])('refuses %s', async (query, msg) => {
        const { status, body } = await get(`/api/geo/outlines?${query}`);
        expect(status).toBe(400);
        expect(body).toEqual({ code: 400, msg });
    });
});

describe('GET /api/geo/config and MAP_STYLE_URL', () => {
    it('says the basemap is offline unless MAP_STYLE_URL names a style', async () => {
        expect((await get('/api/geo/config')).body.data).toEqual({ styleUrl: null, offline: true });
        const online = geoApp('https://tiles.example.com/style.json');
        const body = (await (await online.request('/api/geo/config')).json()) as { data: unknown };
        expect(body.data).toEqual({ styleUrl: 'https://tiles.example.com/style.json', offline: false });
    });

    it('reads MAP_STYLE_URL and refuses anything but an http(s) URL or a path', () => {
        expect(loadGeoConfig({}).styleUrl).toBeUndefined();
        expect(loadGeoConfig({ MAP_STYLE_URL: ' /styles/local.json ' }).styleUrl).toBe('/styles/local.json');
        expect(() => loadGeoConfig({ MAP_STYLE_URL: 'javascript:alert(1)' })).toThrow(/MAP_STYLE_URL/);
    });
});

describe('online geocoder (MAP_GEOCODER_KEY)', () => {
    const requests: URL[] = [];
    const amap = (answer: (u: URL) => unknown): typeof fetch =>
        (async (input: RequestInfo | URL) => {
            const u = new URL(String(input));
            requests.push(u);
            return new Response(JSON.stringify(answer(u)), { headers: { 'content-type': 'application/json' } });
        }) as typeof fetch;

    function onlineApp(fetchImpl: typeof fetch, warnings: string[] = []) {
        const app = new Hono();
        app.onError((err, c) =>
            err instanceof ApiError ? fail(c, err.status, err.message) : fail(c, 500, '系统错误'),
        );
        const online = createAmapGeocoder({ key: 'k1', url: 'https://amap.test/', fetch: fetchImpl });
        app.route('/api/geo', createGeoRouter({ online, warn: (m) => warnings.push(m) }));
        return app;
    }

    it('answers AMap street-level addresses, municipalities with their city filled in', async () => {
        const app = onlineApp(
            amap(() => ({
                status: '1',
                regeocode: {
                    formatted_address: '上海市黄浦区南京东路街道南京东路',
                    addressComponent: {
                        province: '上海市',
                        city: [],
                        district: '黄浦区',
                        township: '南京东路街道',
                        adcode: '310101',
                        streetNumber: { street: '南京东路', number: '1号' },
                    },
                },
            })),
        );
        const body = (await (await app.request('/api/geo/reverse?lng=121.4737&lat=31.2304&radius=500')).json()) as {
            data: unknown;
        };
        expect(body.data).toEqual({
            lng: 121.4737,
            lat: 31.2304,
            province: '上海市',
            city: '上海市',
            district: '黄浦区',
            street: '南京东路',
            adcode: '310101',
            address: '上海市黄浦区南京东路街道南京东路',
        });
        const sent = requests.at(-1)!;
        expect(sent.origin + sent.pathname).toBe('https://amap.test/v3/geocode/regeo');
        expect(Object.fromEntries(sent.searchParams)).toMatchObject({
            key: 'k1',
            location: '121.473700,31.230400',
            radius: '500',
        });
    });

    it('answers points of interest from place search', async () => {
        const app = onlineApp(
            amap(() => ({
                status: '1',
                pois: [
                    {
                        name: '东方明珠',
                        location: '121.499718,31.239703',
                        pname: '上海市',
                        cityname: '上海市',
                        adname: '浦东新区',
                        adcode: '310115',
                        address: '世纪大道1号',
                    },
                ],
            })),
        );
        const res = await app.request(`/api/geo/search?keyword=${encodeURIComponent('东方明珠')}&city=上海市`);
        const body = (await res.json()) as { data: { list: unknown[] } };
        expect(body.data.list).toEqual([
            {
                name: '东方明珠',
                level: 'poi',
                adcode: '310115',
                province: '上海市',
                city: '上海市',
                district: '浦东新区',
                address: '上海市浦东新区世纪大道1号',
                lng: 121.499718,
                lat: 31.239703,
            },
        ]);
        expect(requests.at(-1)!.searchParams.get('city')).toBe('上海市');
    });

    it('falls back to the offline data when the service refuses, and says so', async () => {
        const warnings: string[] = [];
        const app = onlineApp(
            amap(() => ({ status: '0', info: 'INVALID_USER_KEY', infocode: '10001' })),
            warnings,
        );
        const body = (await (await app.request('/api/geo/reverse?lng=121.4737&lat=31.2304')).json()) as {
            data: { adcode: string; street: string };
        };
        expect(body.data).toMatchObject({ adcode: '310101', street: '' });
        expect(warnings[0]).toContain('INVALID_USER_KEY');
        const search = await app.request(`/api/geo/search?keyword=${encodeURIComponent('浦东')}`);
        expect(((await search.json()) as { data: { list: Array<{ adcode: string }> } }).data.list[0].adcode).toBe(
            '310115',
        );
    });

    it('reads MAP_GEOCODER_KEY and MAP_GEOCODER_URL', () => {
        expect(loadGeoConfig({ MAP_GEOCODER_KEY: ' abc ' }).geocoder).toEqual({ key: 'abc' });
        expect(loadGeoConfig({ MAP_GEOCODER_KEY: 'abc', MAP_GEOCODER_URL: 'http://proxy:8000' }).geocoder).toEqual({
            key: 'abc',
            url: 'http://proxy:8000',
        });
        expect(() => loadGeoConfig({ MAP_GEOCODER_KEY: 'abc', MAP_GEOCODER_URL: 'ftp://x' })).toThrow(
            /MAP_GEOCODER_URL/,
        );
    });
});

describe('the contract (openapi.yaml)', () => {
    type Json = Record<string, unknown>;
    const merged = spec as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(merged, 'geo.json');
    const validator = (p: string, status: number, type = 'application/json') => {
        const pointer = `#/paths/${p.replace(/\//g, '~1')}/get/responses/${status}`;
        let node = pointer
            .split('/')
            .slice(1)
            .reduce<Json>((n, k) => n[k.replace(/~1/g, '/')] as Json, merged);
        let base = pointer;
        if (typeof node.$ref === 'string') {
            base = node.$ref;
            node = base
                .split('/')
                .slice(1)
                .reduce<Json>((n, k) => n[k] as Json, merged);
        }
        return ajv.compile({ $ref: `geo.json${base}/content/${type.replace(/\//g, '~1')}/schema` });
    };

    it.each([
        ['/api/geo/config', '/api/geo/config', 200],
        ['/api/geo/reverse', '/api/geo/reverse?lng=121.4737&lat=31.2304', 200],
        ['/api/geo/reverse', '/api/geo/reverse?lng=123.5&lat=30', 404],
        ['/api/geo/reverse', '/api/geo/reverse?lat=1', 400],
        ['/api/geo/search', `/api/geo/search?keyword=${encodeURIComponent('浦东')}`, 200],
        ['/api/geo/search', '/api/geo/search', 400],
        ['/api/geo/outlines', '/api/geo/outlines?level=x', 400],
    ])('%s → %s answers as declared', async (declared, url, status) => {
        const { status: got, body } = await get(url);
        expect(got).toBe(status);
        const validate = validator(declared, status);
        expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
    });

    it.each(['level=province', 'level=city', 'level=district&bbox=121,31,122,32'])(
        'outlines %s answer declared GeoJSON',
        async (query) => {
            const res = await app.request(`/api/geo/outlines?${query}`);
            const validate = validator('/api/geo/outlines', 200, 'application/geo+json');
            expect(validate(await res.json()), ajv.errorsText(validate.errors)).toBe(true);
        },
    );
});
