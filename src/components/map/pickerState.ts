import { SPEC_ZOOM_OFFSET } from './style';
import type { MapAddress, MapPickerDialogProps } from './types';

/** SPEC "Map picker": messages used verbatim. */
export const ADDRESS_REQUIRED = '请选择地址';
/** For the form around the picker (tags): confirming the form before a position was confirmed. */
export const CONFIRM_POSITION_FIRST = '请先位置确定';
export const LOCATING = '正在获取地址…';

/** SPEC constants: picker centre, zoom (SPEC_ZOOM_OFFSET: the same extent as SPEC's 12), search city, radius. */
export const PICKER_CENTER: [number, number] = [121.6, 31.2];
export const PICKER_ZOOM = 12 + SPEC_ZOOM_OFFSET;
export const PICKER_CITY = '上海市';
export const PICKER_RADIUS = 1000;

export interface PickerState {
    point: { lng: number; lat: number } | null;
    /** The reverse-geocoded address of `point`; null while locating or when the point has none. */
    address: MapAddress | null;
    locating: boolean;
    /** Why the point has no address (outside the supported area, network failure). */
    error: string | null;
}

export type PickerAction =
    | { type: 'pick'; lng: number; lat: number }
    | { type: 'located'; address: MapAddress }
    | { type: 'failed'; lng: number; lat: number; message: string };

const samePoint = (p: PickerState['point'], lng: number, lat: number) => p !== null && p.lng === lng && p.lat === lat;

export function initialPickerState(value: MapPickerDialogProps['value']): PickerState {
    if (!value) return { point: null, address: null, locating: false, error: null };
    const point = { lng: value.lng, lat: value.lat };
    const address =
        value.address && value.adcode
            ? {
                  ...point,
                  address: value.address,
                  province: value.province ?? '',
                  city: value.city ?? '',
                  district: value.district ?? '',
                  street: value.street ?? '',
                  adcode: value.adcode,
              }
            : null;
    return { point, address, locating: false, error: null };
}

export function pickerReducer(state: PickerState, action: PickerAction): PickerState {
    switch (action.type) {
        case 'pick':
            return { point: { lng: action.lng, lat: action.lat }, address: null, locating: true, error: null };
        case 'located':
            // An answer for an earlier click that arrives after a newer one is dropped.
            if (!samePoint(state.point, action.address.lng, action.address.lat)) return state;
            return { ...state, address: action.address, locating: false, error: null };
        case 'failed':
            if (!samePoint(state.point, action.lng, action.lat)) return state;
            return { ...state, address: null, locating: false, error: action.message };
    }
}

/** '确认位置' stays disabled until a point has been chosen. */
export const canConfirm = (state: PickerState) => state.point !== null;

export type ConfirmOutcome = { ok: true; value: MapAddress } | { ok: false; message: string };

/** Confirming needs an address for the chosen point (SPEC: '请选择地址'). */
export function confirmPick(state: PickerState): ConfirmOutcome {
    if (!state.point || !state.address) return { ok: false, message: ADDRESS_REQUIRED };
    return { ok: true, value: { ...state.address, lng: state.point.lng, lat: state.point.lat } };
}

/** What the dialog shows under the map. */
export function statusText(state: PickerState): string {
    if (!state.point) return '点击地图选择位置，或搜索地名';
    if (state.locating) return LOCATING;
    if (state.address) return state.address.address;
    return state.error ?? ADDRESS_REQUIRED;
}

/** The device tag `coordinate` holds the position as 'lat,lng' (SPEC "Tag"). */
export function toCoordinateTag(p: { lng: number; lat: number }): string {
    return `${p.lat},${p.lng}`;
}

export function parseCoordinateTag(value: string | null | undefined): { lng: number; lat: number } | null {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value ?? '');
    if (!m) return null;
    const lat = Number(m[1]);
    const lng = Number(m[2]);
    return Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lng, lat } : null;
}

/** Province, city and district codes of an adcode (SPEC: slices 0-2, 2-4, 4-6), as video devices store them. */
export function adcodeParts(adcode: string): { pcode: string; ccode: string; acode: string } {
    return { pcode: adcode.slice(0, 2), ccode: adcode.slice(2, 4), acode: adcode.slice(4, 6) };
}
