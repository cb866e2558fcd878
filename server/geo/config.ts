/**
 * Map settings (docs/configuration.md). By default everything is offline: the console draws the outlines this server
 * ships and geocodes with them. An installation with internet access may point the console at an online style.
 */
export interface GeoConfig {
    /** A MapLibre style URL (an online provider's basemap); unset: the offline outline basemap. */
    styleUrl: string | undefined;
    /** An online geocoder (AMap web service key); unset: the offline geocoder alone. */
    geocoder?: { key: string; url?: string };
}

export const DEFAULT_GEO_CONFIG: GeoConfig = { styleUrl: undefined };

const HTTP_OR_PATH = /^(https?:\/\/[^\s]+|\/[^\s]*)$/;
const HTTP = /^https?:\/\/[^\s]+$/;

function checked(name: string, raw: string | undefined, pattern: RegExp, what: string): string | undefined {
    const value = raw?.trim();
    if (!value) return undefined;
    if (!pattern.test(value)) throw new Error(`${name} 必须是${what} / ${name} is malformed (got "${value}")`);
    return value;
}

/** MAP_STYLE_URL: an http(s) URL or a path on this origin; MAP_GEOCODER_URL: an http(s) URL. */
export function loadGeoConfig(env: NodeJS.ProcessEnv = process.env): GeoConfig {
    const styleUrl = checked('MAP_STYLE_URL', env.MAP_STYLE_URL, HTTP_OR_PATH, ' http(s) 地址或以 / 开头的路径');
    const key = env.MAP_GEOCODER_KEY?.trim();
    const url = checked('MAP_GEOCODER_URL', env.MAP_GEOCODER_URL, HTTP, ' http(s) 地址');
    return { styleUrl, ...(key ? { geocoder: { key, ...(url ? { url } : {}) } } : {}) };
}
