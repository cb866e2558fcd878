import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Hono, type Context } from 'hono';
import type { ServerConfig } from '../config';
import type { AppEnv } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { createAmapGeocoder, type OnlineGeocoder } from './amap';
import { DEFAULT_GEO_CONFIG, type GeoConfig } from './config';
import { defaultGeocoder, readAsset, OUTSIDE_MESSAGE, type Area, type GeoAddress, type Geocoder } from './geocoder';
import type { BBox } from './geometry';

export interface GeoRouterDeps {
    /** The server's config; `map` holds the map settings (loadGeoConfig), offline defaults when absent. */
    config?: Partial<ServerConfig> & { map?: GeoConfig };
    /** The geocoder (default: the shipped assets, loaded on first use). */
    geocoder?: () => Geocoder;
    /** An online geocoder tried first (default: AMap when config.map.geocoder holds a key). */
    online?: OnlineGeocoder;
    /** Where failed online calls are reported before falling back (default console.warn, once a minute). */
    warn?: (message: string) => void;
}

export const DEFAULT_RADIUS = 1000;
export const MAX_RADIUS = 3000;
export const MAX_KEYWORD = 50;
/** The widest box /outlines?level=district answers, in degrees each way (a zoom-8 view, rounded out). */
export const MAX_DISTRICT_SPAN = 12;

function coordinate(raw: string | undefined, name: '经度' | '纬度', limit: number): number {
    if (raw === undefined || raw.trim() === '') throw badRequest(`${name}不能为空`);
    const value = Number(raw);
    if (!Number.isFinite(value) || Math.abs(value) > limit) {
        throw badRequest(`${name}必须是-${limit}~${limit}之间的数字`);
    }
    return value;
}

function radiusOf(raw: string | undefined): number {
    if (raw === undefined || raw.trim() === '') return DEFAULT_RADIUS;
    if (!/^\d{1,4}$/.test(raw.trim()) || Number(raw) > MAX_RADIUS) {
        throw badRequest(`半径必须是0~${MAX_RADIUS}之间的整数（米）`);
    }
    return Number(raw);
}

function bboxOf(raw: string | undefined): BBox {
    const message = 'bbox 必须是“最小经度,最小纬度,最大经度,最大纬度”';
    const parts = (raw ?? '').split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
    if (parts.length !== 4 || parts.some((p) => !Number.isFinite(p))) throw badRequest(message);
    const [w, s, e, n] = parts;
    if (w > e || s > n || Math.abs(w) > 180 || Math.abs(e) > 180 || Math.abs(s) > 90 || Math.abs(n) > 90) {
        throw badRequest(message);
    }
    if (e - w > MAX_DISTRICT_SPAN || n - s > MAX_DISTRICT_SPAN) {
        throw badRequest(`bbox 范围过大（每边不超过${MAX_DISTRICT_SPAN}度），请放大地图后再试`);
    }
    return [w, s, e, n];
}

interface Body {
    text: string;
    gzip?: Buffer;
    etag: string;
}

function body(text: string): Body {
    return { text, etag: `"${createHash('sha1').update(text).digest('base64url').slice(0, 27)}"` };
}

/**
 * GeoJSON for the basemap, not in the envelope: maplibre reads it directly. Gzipped when the client takes it (the
 * outlines compress to about a third), cacheable per session, and answered 304 when the client has it already.
 */
function geojson(c: Context, b: Body, maxAge: number) {
    c.header('Cache-Control', `private, max-age=${maxAge}`);
    c.header('ETag', b.etag);
    c.header('Vary', 'Accept-Encoding');
    if (c.req.header('if-none-match') === b.etag) return c.body(null, 304);
    c.header('Content-Type', 'application/geo+json; charset=utf-8');
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '') && b.text.length > 1024) {
        b.gzip ??= gzipSync(b.text);
        c.header('Content-Encoding', 'gzip');
        return c.body(new Uint8Array(b.gzip));
    }
    return c.body(b.text);
}

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

interface OutlineFeature {
    type: 'Feature';
    properties: { adcode: string; name: string; lng: number | null; lat: number | null } & Record<string, unknown>;
    geometry: unknown;
}

/**
 * The outlines (kind 'area') followed by one point per area at its seat of government (kind 'label'): a map labels
 * the points, as labels placed on tiled polygons repeat in every tile the area crosses.
 */
function withLabels(features: OutlineFeature[]): string {
    const labels = features
        .filter((f) => f.properties.lng !== null && f.properties.lat !== null && f.properties.name)
        .map((f) => ({
            type: 'Feature',
            properties: { kind: 'label', adcode: f.properties.adcode, name: f.properties.name },
            geometry: { type: 'Point', coordinates: [f.properties.lng, f.properties.lat] },
        }));
    const areas = features.map((f) => ({ ...f, properties: { kind: 'area', ...f.properties } }));
    return JSON.stringify({ type: 'FeatureCollection', features: [...areas, ...labels] }, (_key, v: unknown) =>
        typeof v === 'number' ? round4(v) : v,
    );
}

function districtFeatures(areas: Area[]): OutlineFeature[] {
    return areas.map((a) => ({
        type: 'Feature',
        properties: { adcode: a.adcode, name: a.district || a.city, lng: a.lng, lat: a.lat },
        geometry: a.geometry,
    }));
}

/**
 * /api/geo: the offline map service (openapi.yaml, tag geo). Reverse geocoding and search answer the
 * general envelope (code 200); outlines answer plain GeoJSON.
 */
export function createGeoRouter(deps: GeoRouterDeps = {}) {
    const app = new Hono<AppEnv>();
    const geo = deps.geocoder ?? defaultGeocoder;
    const map = deps.config?.map ?? DEFAULT_GEO_CONFIG;
    const online = deps.online ?? (map.geocoder ? createAmapGeocoder(map.geocoder) : undefined);
    let lastWarning = 0;
    const warn =
        deps.warn ??
        ((message: string) => {
            if (Date.now() - lastWarning < 60_000) return;
            lastWarning = Date.now();
            console.warn(message);
        });
    /** The online answer, or undefined (after a warning) when the call failed and the offline one should serve. */
    async function tryOnline<T>(what: string, call: (g: OnlineGeocoder) => Promise<T>): Promise<T | undefined> {
        if (!online) return undefined;
        try {
            return await call(online);
        } catch (err) {
            warn(`[geo] 在线${what}失败，改用离线数据 / online ${what} failed, using offline data: ${String(err)}`);
            return undefined;
        }
    }
    const outlines = new Map<string, Body>();
    const outline = (level: 'province' | 'city') => {
        let b = outlines.get(level);
        if (!b) {
            const file = readAsset(level === 'province' ? 'provinces.geojson' : 'cities.geojson');
            b = body(withLabels((JSON.parse(file) as { features: OutlineFeature[] }).features));
            outlines.set(level, b);
        }
        return b;
    };

    app.get('/config', (c) => ok(c, { styleUrl: map.styleUrl ?? null, offline: !map.styleUrl }));

    app.get('/reverse', async (c) => {
        const lng = coordinate(c.req.query('lng'), '经度', 180);
        const lat = coordinate(c.req.query('lat'), '纬度', 90);
        const radius = radiusOf(c.req.query('radius'));
        let found: GeoAddress | null | undefined = await tryOnline('逆地理编码', (g) => g.reverse(lng, lat, radius));
        if (found === undefined) found = geo().reverse(lng, lat, radius);
        if (!found) throw notFound(OUTSIDE_MESSAGE);
        return ok(c, found);
    });

    app.get('/search', async (c) => {
        const keyword = (c.req.query('keyword') ?? '').trim();
        if (!keyword) throw badRequest('请输入搜索关键字');
        if (keyword.length > MAX_KEYWORD) throw badRequest(`搜索关键字不能超过${MAX_KEYWORD}个字符`);
        const city = c.req.query('city')?.trim() || undefined;
        const cityLimit = c.req.query('citylimit') === 'true';
        if (city && !geo().findCity(city)) throw badRequest(`不支持的城市：${city}`);
        if (cityLimit && !city) throw badRequest('限定城市搜索时请提供城市');
        const found = await tryOnline('地点搜索', (g) => g.search(keyword, { city, cityLimit }));
        // Administrative names always resolve offline; an online search that finds nothing falls back to them.
        const list = found?.length ? found : geo().search(keyword, { city, cityLimit, limit: 10 });
        return ok(c, { list: list.slice(0, 10) });
    });

    app.get('/outlines', (c) => {
        const level = c.req.query('level') ?? 'province';
        if (level === 'province' || level === 'city') return geojson(c, outline(level), 86_400);
        if (level === 'district') {
            const box = bboxOf(c.req.query('bbox'));
            return geojson(c, body(withLabels(districtFeatures(geo().districtsIn(box)))), 86_400);
        }
        throw badRequest('level 必须是 province、city 或 district');
    });

    return app;
}
