import { readFileSync } from 'node:fs';
import { fromRoot } from '../paths';
import { gunzipSync } from 'node:zlib';
import {
    bboxOf,
    centreOf,
    contains,
    degreesAround,
    distanceToEdges,
    GridIndex,
    ringsOf,
    type BBox,
    type GeoGeometry,
    type Ring,
} from './geometry';
import { topologyFeatures, type Topology } from './topojson';

export type AreaLevel = 'province' | 'city' | 'district';

/** One administrative area with its outline, as the geocoder holds it. */
export interface Area {
    adcode: string;
    level: AreaLevel;
    name: string;
    province: string;
    /** The city; a municipality's own name for its districts, empty for counties a province governs directly. */
    city: string;
    district: string;
    /** Seat of government (search results centre here); null when the source gave none. */
    lng: number | null;
    lat: number | null;
    rings: Ring[];
    bbox: BBox;
    geometry: GeoGeometry;
}

/** The answer of a reverse lookup: SPEC's map address (street stays empty: no street data ships offline). */
export interface GeoAddress {
    lng: number;
    lat: number;
    province: string;
    city: string;
    district: string;
    street: string;
    adcode: string;
    address: string;
}

export interface SearchHit {
    name: string;
    /** 'poi' only from an online geocoder (MAP_GEOCODER_KEY). */
    level: AreaLevel | 'poi';
    adcode: string;
    province: string;
    city: string;
    district: string;
    address: string;
    lng: number;
    lat: number;
}

export interface SearchOptions {
    /** A city or province (name or adcode) whose areas come first. */
    city?: string;
    /** Only areas inside `city`. */
    cityLimit?: boolean;
    limit?: number;
}

export const OUTSIDE_MESSAGE = '该位置不在支持的范围内';

/** Full address text: 上海市黄浦区, 广东省中山市, not 上海市上海市黄浦区. */
export function addressOf(a: Pick<Area, 'province' | 'city' | 'district'>): string {
    return a.province + (a.city && a.city !== a.province ? a.city : '') + a.district;
}

interface DistrictProps {
    adcode: string;
    name: string;
    level: 'district' | 'city';
    province: string;
    city: string;
    lng: number | null;
    lat: number | null;
}

interface OutlineCollection {
    type: 'FeatureCollection';
    features: Array<{
        type: 'Feature';
        properties: { adcode: string; name: string; province?: string; lng: number | null; lat: number | null };
        geometry: GeoGeometry;
    }>;
}

/** The assets folder beside this module (from the path string: under jsdom, URL is jsdom's and Node refuses it). */
const ASSETS = `${fromRoot('server', 'geo', 'assets')}/`;

/** A shipped asset's text (stored gzipped; server/geo/assets/SOURCES.md). */
export function readAsset(name: 'provinces.geojson' | 'cities.geojson' | 'districts.topojson'): string {
    return gunzipSync(readFileSync(`${ASSETS}${name}.gz`)).toString('utf8');
}

function area(props: Omit<Area, 'rings' | 'bbox' | 'geometry' | 'district'>, geometry: GeoGeometry): Area {
    const rings = ringsOf(geometry);
    // A few source polygons carry no seat of government (崇明区, 沧州's districts): search centres them on their shape.
    const [lng, lat] = props.lng !== null && props.lat !== null ? [props.lng, props.lat] : centreOf(rings);
    const district = props.level === 'district' ? props.name : '';
    return { ...props, lng, lat, district, rings, bbox: bboxOf(rings), geometry };
}

export interface GeoData {
    provinces: Area[];
    cities: Area[];
    districts: Area[];
}

/** Reads the committed assets (server/geo/assets, see SOURCES.md there). */
export function loadGeoData(read: typeof readAsset = readAsset): GeoData {
    const json = <T>(name: Parameters<typeof readAsset>[0]) => JSON.parse(read(name)) as T;
    const provincesJson = json<OutlineCollection>('provinces.geojson');
    const citiesJson = json<OutlineCollection>('cities.geojson');
    const topology = json<Topology>('districts.topojson');
    const provinces = provincesJson.features.map((f) =>
        area({ ...f.properties, level: 'province', province: f.properties.name, city: '' }, f.geometry),
    );
    const cities = citiesJson.features.map((f) =>
        area(
            { ...f.properties, level: 'city', province: f.properties.province ?? '', city: f.properties.name },
            f.geometry,
        ),
    );
    const districts = topologyFeatures<DistrictProps>(topology, 'districts').map((f) =>
        area({ ...f.properties, level: f.properties.level === 'city' ? 'city' : 'district' }, f.geometry),
    );
    return { provinces, cities, districts };
}

/**
 * Offline reverse geocoding and administrative-name search over the shipped outlines. Lookups go from the finest
 * layer down: districts, then cities (cities without districts, such as 东莞市), then provinces (Taiwan ships at
 * province level only).
 */
export class Geocoder {
    private readonly layers: Array<GridIndex<Area>>;
    private readonly names: Area[];

    constructor(readonly data: GeoData) {
        this.layers = [data.districts, data.cities, data.provinces].map((items) => new GridIndex(items));
        // Search ranks provinces before their cities before their districts when the match is equally good.
        // A municipality's city-level entry repeats its province (上海市 310100 beside 310000): it is left out.
        this.names = [...data.provinces, ...data.cities, ...data.districts].filter(
            (a) => a.lng !== null && a.name && !(a.level === 'city' && a.name === a.province),
        );
    }

    /** The area at the point; within `radius` metres of an outline when none contains it; null outside them all. */
    reverse(lng: number, lat: number, radius = 1000): GeoAddress | null {
        const found = this.containing(lng, lat) ?? (radius > 0 ? this.nearest(lng, lat, radius) : undefined);
        if (!found) return null;
        return {
            lng,
            lat,
            province: found.province,
            city: found.city,
            district: found.district,
            street: '',
            adcode: found.adcode,
            address: addressOf(found),
        };
    }

    private containing(lng: number, lat: number): Area | undefined {
        const point: BBox = [lng, lat, lng, lat];
        for (const layer of this.layers) {
            const hit = layer.query(point).find((a) => contains(a.rings, lng, lat));
            if (hit) return hit;
        }
        return undefined;
    }

    private nearest(lng: number, lat: number, radius: number): Area | undefined {
        const { dLng, dLat } = degreesAround(lat, radius);
        const box: BBox = [lng - dLng, lat - dLat, lng + dLng, lat + dLat];
        for (const layer of this.layers) {
            let best: Area | undefined;
            let bestDistance = radius;
            for (const a of layer.query(box)) {
                const d = distanceToEdges(a.rings, lng, lat);
                if (d <= bestDistance) {
                    best = a;
                    bestDistance = d;
                }
            }
            if (best) return best;
        }
        return undefined;
    }

    /** The province or city `city` names (name with or without its suffix, or adcode); undefined if unknown. */
    findCity(city: string): Area | undefined {
        const q = city.trim();
        if (/^\d{6}$/.test(q)) {
            return [...this.data.provinces, ...this.data.cities].find((a) => a.adcode === q);
        }
        const key = stem(q);
        return (
            this.data.cities.find((a) => a.name === q) ??
            this.data.provinces.find((a) => a.name === q) ??
            this.data.cities.find((a) => stem(a.name) === key) ??
            this.data.provinces.find((a) => stem(a.name) === key)
        );
    }

    /**
     * Areas whose name matches the keyword, best first: exact (with or without suffix), then prefix, then
     * substring, then names the keyword contains (a typed address such as 上海市浦东新区), finest level first.
     * Areas inside `city` come before the rest; with cityLimit only they are answered.
     */
    search(keyword: string, options: SearchOptions = {}): SearchHit[] {
        const q = keyword.replace(/\s+/g, '');
        if (!q) return [];
        const scope = options.city ? this.findCity(options.city) : undefined;
        const prefix = scope ? adcodePrefix(scope) : undefined;
        const key = stem(q);
        const scored: Array<{ a: Area; inScope: boolean; score: number }> = [];
        for (const a of this.names) {
            const inScope = prefix !== undefined && a.adcode.startsWith(prefix);
            if (options.cityLimit && !inScope) continue;
            const s = stem(a.name);
            let score: number;
            if (a.name === q || s === key) score = 0;
            else if (a.name.startsWith(q)) score = 1;
            else if (a.name.includes(q)) score = 2;
            else if (s.length >= 2 && q.includes(s))
                score = 3 + (a.level === 'district' ? 0 : a.level === 'city' ? 0.1 : 0.2);
            else continue;
            scored.push({ a, inScope, score });
        }
        scored.sort((x, y) => Number(y.inScope) - Number(x.inScope) || x.score - y.score);
        return scored.slice(0, options.limit ?? 10).map(({ a }) => ({
            name: a.name,
            level: a.level,
            adcode: a.adcode,
            province: a.province,
            city: a.city,
            district: a.district,
            address: addressOf(a),
            lng: a.lng!,
            lat: a.lat!,
        }));
    }

    /** Districts (and cities without districts) whose outlines meet the box. */
    districtsIn(box: BBox): Area[] {
        return this.layers[0].query(box);
    }
}

/** Adcode prefix of everything inside an area: 31 for 上海市, 3201 for 南京市. */
function adcodePrefix(a: Area): string {
    return a.level === 'province' ? a.adcode.slice(0, 2) : a.level === 'city' ? a.adcode.slice(0, 4) : a.adcode;
}

const SUFFIXES = [
    '特别行政区',
    '自治区',
    '自治州',
    '自治县',
    '自治旗',
    '地区',
    '新区',
    '省',
    '市',
    '区',
    '县',
    '盟',
    '旗',
];

/** A name without its administrative suffix, so 上海 finds 上海市 and 浦东 finds 浦东新区. */
export function stem(name: string): string {
    for (const s of SUFFIXES) if (name.length > s.length && name.endsWith(s)) return name.slice(0, -s.length);
    return name;
}

let shared: Geocoder | undefined;

/** The geocoder over the shipped assets, built on first use (about 0.3 s) and kept. */
export function defaultGeocoder(): Geocoder {
    shared ??= new Geocoder(loadGeoData());
    return shared;
}
