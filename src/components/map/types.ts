/** SPEC "Map address": what the picker hands back, and the server's reverse-geocoding answer. */
export interface MapAddress {
    lng: number;
    lat: number;
    address: string;
    province: string;
    city: string;
    district: string;
    /** Empty offline: no street data ships with the project. */
    street: string;
    /** 6-digit code: province, city and district codes are its slices 0-2, 2-4 and 4-6. */
    adcode: string;
}

/** One administrative area from GET /api/geo/search. */
export interface GeoSearchHit {
    name: string;
    /** 'poi' only when the server uses an online geocoder (MAP_GEOCODER_KEY). */
    level: 'province' | 'city' | 'district' | 'poi';
    adcode: string;
    province: string;
    city: string;
    district: string;
    address: string;
    lng: number;
    lat: number;
}

export type DeviceStatus = 'ONLINE' | 'OFFLINE' | 'INACTIVE' | 'DISABLE';

/** A located device on the dashboard map. */
export interface DevicePoint {
    id: string | number;
    lng: number | null | undefined;
    lat: number | null | undefined;
    name: string;
    status?: DeviceStatus | string;
    /** The device's product (a device's detail page is addressed by both). */
    productId?: number | string;
}

export interface MapPickerDialogProps {
    open: boolean;
    /** The position already chosen (the map opens on it, its address shown); null or absent: nothing chosen. */
    value?: (Partial<MapAddress> & { lng: number; lat: number }) | null;
    onClose: () => void;
    onConfirm: (address: MapAddress) => void;
    /** Search city preference (SPEC default 上海市). */
    city?: string;
    title?: string;
}

export interface DeviceMapProps {
    points: readonly DevicePoint[];
    /** A click on a device: its id, and the device as the map holds it. */
    onPointClick?: (id: DevicePoint['id'], point?: DevicePoint) => void;
    /** CSS height of the map (default 400). */
    height?: number | string;
    /** The maplibre map once its style has loaded (tests and benchmarks read it). */
    onLoad?: (map: import('maplibre-gl').Map) => void;
}
