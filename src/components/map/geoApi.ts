import { NETWORK_MESSAGE, withAuthorization } from '../../../dataProvider/http';
import type { GeoSearchHit, MapAddress } from './types';

/** The map service of the platform server (/api/geo, general family: code 200). */
export interface GeoApi {
    config(): Promise<{ styleUrl: string | null }>;
    reverse(lng: number, lat: number, radius?: number): Promise<MapAddress>;
    search(keyword: string, city?: string): Promise<GeoSearchHit[]>;
    /** Absolute URL of an outline layer (maplibre fetches it in its worker, where relative URLs do not resolve). */
    outlineUrl(level: 'province' | 'city' | 'district', bbox?: [number, number, number, number]): string;
    /**
     * Fetches an outline layer into the browser's HTTP cache (the server lets it be cached), for maplibre's worker to
     * find there, or joining this request, when the style asks for it: the basemap's data is on its way while the map
     * is created and its style config answers, not only after.
     */
    warmOutline?(level: 'province'): void;
}

const envPrefix = () => ((import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '').replace(/\/+$/, '');

export function createGeoApi(options: { prefix?: string; fetch?: typeof fetch } = {}): GeoApi {
    const prefix = (options.prefix ?? envPrefix()).replace(/\/+$/, '');
    const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

    async function call<T>(path: string, params: Record<string, string | number | undefined>): Promise<T> {
        const query = new URLSearchParams();
        for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
        let res: Response;
        try {
            res = await doFetch(`${prefix}${path}?${query}`, {
                headers: withAuthorization({ Accept: 'application/json' }),
                credentials: 'same-origin',
            });
        } catch {
            throw new Error(NETWORK_MESSAGE);
        }
        let body: { code?: unknown; msg?: unknown; data?: unknown } | undefined;
        try {
            body = await res.json();
        } catch {
            body = undefined;
        }
        if (body && Number(body.code) === 200) return body.data as T;
        throw new Error(typeof body?.msg === 'string' && body.msg ? body.msg : `请求失败（${res.status}）`);
    }

    const outlineUrl: GeoApi['outlineUrl'] = (level, bbox) => {
        const query = new URLSearchParams({ level });
        if (bbox) query.set('bbox', bbox.join(','));
        return new URL(`${prefix}/api/geo/outlines?${query}`, globalThis.location?.href ?? 'http://localhost/').href;
    };

    return {
        config: () => call('/api/geo/config', {}),
        reverse: (lng, lat, radius) => call('/api/geo/reverse', { lng, lat, radius }),
        search: async (keyword, city) =>
            (await call<{ list: GeoSearchHit[] }>('/api/geo/search', { keyword, city })).list,
        outlineUrl,
        warmOutline(level) {
            const url = outlineUrl(level);
            // Read to the end so the cache entry completes; a failure is maplibre's to report when it asks itself.
            doFetch(url, { credentials: 'same-origin' })
                .then((res) => res.arrayBuffer())
                .catch(() => undefined);
        },
    };
}
