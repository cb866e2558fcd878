import { addressOf, type GeoAddress, type SearchHit } from './geocoder';

/**
 * An online geocoder for installations with internet access (MAP_GEOCODER_KEY): AMap's web service API
 * (v3 geocode/regeo and place/text), which also finds streets and points of interest. Its coordinates are
 * GCJ-02, like the shipped outlines' source. The router falls back to the offline geocoder when a call fails.
 */
export interface OnlineGeocoder {
    reverse(lng: number, lat: number, radius: number): Promise<GeoAddress | null>;
    search(keyword: string, options: { city?: string; cityLimit?: boolean }): Promise<SearchHit[]>;
}

export interface AmapOptions {
    key: string;
    /** Base URL of the service (a proxy or private deployment); default https://restapi.amap.com. */
    url?: string;
    fetch?: typeof fetch;
    timeoutMs?: number;
}

/** AMap answers [] where a field is empty (a municipality's city, a point without a street). */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function createAmapGeocoder({
    key,
    url,
    fetch: doFetch = fetch,
    timeoutMs = 3000,
}: AmapOptions): OnlineGeocoder {
    const base = (url ?? 'https://restapi.amap.com').replace(/\/+$/, '');

    async function call(path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
        const query = new URLSearchParams({ ...params, key, output: 'JSON' });
        const res = await doFetch(`${base}${path}?${query}`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) throw new Error(`AMap HTTP ${res.status}`);
        const body = (await res.json()) as Record<string, unknown>;
        // status '1' is success; anything else (a bad key, a spent quota) is a failure the caller falls back from.
        if (body.status !== '1') throw new Error(`AMap ${text(body.infocode)} ${text(body.info)}`);
        return body;
    }

    return {
        async reverse(lng, lat, radius) {
            const body = await call('/v3/geocode/regeo', {
                location: `${lng.toFixed(6)},${lat.toFixed(6)}`,
                radius: String(radius),
                extensions: 'base',
            });
            const regeo = (body.regeocode ?? {}) as Record<string, unknown>;
            const c = (regeo.addressComponent ?? {}) as Record<string, unknown>;
            const adcode = text(c.adcode);
            if (!/^\d{6}$/.test(adcode)) return null;
            const province = text(c.province);
            const street = text((c.streetNumber as Record<string, unknown> | undefined)?.street) || text(c.township);
            const parts = { province, city: text(c.city) || province, district: text(c.district) };
            return {
                lng,
                lat,
                ...parts,
                street,
                adcode,
                address: text(regeo.formatted_address) || addressOf(parts),
            };
        },

        async search(keyword, { city, cityLimit }) {
            const body = await call('/v3/place/text', {
                keywords: keyword,
                city: city ?? '',
                citylimit: cityLimit ? 'true' : 'false',
                offset: '10',
                page: '1',
            });
            const pois = Array.isArray(body.pois) ? (body.pois as Array<Record<string, unknown>>) : [];
            return pois.flatMap((p): SearchHit[] => {
                const [lng, lat] = text(p.location).split(',').map(Number);
                if (!Number.isFinite(lng) || !Number.isFinite(lat)) return [];
                const province = text(p.pname);
                const parts = { province, city: text(p.cityname) || province, district: text(p.adname) };
                return [
                    {
                        name: text(p.name),
                        level: 'poi',
                        adcode: text(p.adcode),
                        ...parts,
                        address: addressOf(parts) + text(p.address),
                        lng,
                        lat,
                    },
                ];
            });
        },
    };
}
