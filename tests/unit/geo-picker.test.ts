import { describe, expect, it } from 'vitest';
import { countFont, toFeatureCollection } from '../../src/components/map/deviceLayers';
import { LABEL_FONT } from '../../src/components/map/style';
import {
    ADDRESS_REQUIRED,
    adcodeParts,
    canConfirm,
    confirmPick,
    initialPickerState,
    LOCATING,
    parseCoordinateTag,
    pickerReducer,
    statusText,
    toCoordinateTag,
    type PickerState,
} from '../../src/components/map/pickerState';
import type { MapAddress } from '../../src/components/map/types';

const huangpu: MapAddress = {
    lng: 121.4737,
    lat: 31.2304,
    province: '上海市',
    city: '上海市',
    district: '黄浦区',
    street: '',
    adcode: '310101',
    address: '上海市黄浦区',
};

describe('map picker state', () => {
    it('keeps 确认位置 disabled until a point is chosen', () => {
        const empty = initialPickerState(null);
        expect(canConfirm(empty)).toBe(false);
        expect(statusText(empty)).toBe('点击地图选择位置，或搜索地名');
        const picked = pickerReducer(empty, { type: 'pick', lng: 121.4737, lat: 31.2304 });
        expect(canConfirm(picked)).toBe(true);
        expect(statusText(picked)).toBe(LOCATING);
    });

    it('confirms the located address with the clicked coordinates', () => {
        let s: PickerState = pickerReducer(initialPickerState(undefined), {
            type: 'pick',
            lng: 121.4737,
            lat: 31.2304,
        });
        s = pickerReducer(s, { type: 'located', address: huangpu });
        expect(statusText(s)).toBe('上海市黄浦区');
        expect(confirmPick(s)).toEqual({ ok: true, value: huangpu });
    });

    it("says '请选择地址' when the point has no address (still locating, or refused)", () => {
        const picked = pickerReducer(initialPickerState(null), { type: 'pick', lng: 123.5, lat: 30 });
        expect(confirmPick(picked)).toEqual({ ok: false, message: ADDRESS_REQUIRED });
        const refused = pickerReducer(picked, {
            type: 'failed',
            lng: 123.5,
            lat: 30,
            message: '该位置不在支持的范围内',
        });
        expect(statusText(refused)).toBe('该位置不在支持的范围内');
        expect(confirmPick(refused)).toEqual({ ok: false, message: '请选择地址' });
        expect(confirmPick(initialPickerState(null))).toEqual({ ok: false, message: '请选择地址' });
    });

    it('drops an answer for an earlier click that arrives after a newer one', () => {
        let s = pickerReducer(initialPickerState(null), { type: 'pick', lng: 121.4737, lat: 31.2304 });
        s = pickerReducer(s, { type: 'pick', lng: 116.397, lat: 39.909 });
        const stale = pickerReducer(s, { type: 'located', address: huangpu });
        expect(stale).toBe(s);
        expect(pickerReducer(s, { type: 'failed', lng: 121.4737, lat: 31.2304, message: 'x' })).toBe(s);
    });

    it('opens on a given value with its address, or on a bare position without one', () => {
        const withAddress = initialPickerState(huangpu);
        expect(confirmPick(withAddress)).toEqual({ ok: true, value: huangpu });
        const bare = initialPickerState({ lng: 121.5, lat: 31.2 });
        expect(canConfirm(bare)).toBe(true);
        expect(confirmPick(bare)).toEqual({ ok: false, message: '请选择地址' });
    });
});

describe('location helpers', () => {
    it("writes and reads the coordinate tag as 'lat,lng'", () => {
        expect(toCoordinateTag({ lng: 121.4737, lat: 31.2304 })).toBe('31.2304,121.4737');
        expect(parseCoordinateTag(' 31.2304, 121.4737 ')).toEqual({ lng: 121.4737, lat: 31.2304 });
        expect(parseCoordinateTag('121.4737,95')).toBeNull();
        expect(parseCoordinateTag('abc')).toBeNull();
        expect(parseCoordinateTag(undefined)).toBeNull();
    });

    it('splits an adcode into province, city and district codes', () => {
        expect(adcodeParts('310115')).toEqual({ pcode: '31', ccode: '01', acode: '15' });
    });

    it('maps only devices with a usable location', () => {
        const fc = toFeatureCollection([
            { id: 1, name: 'a', lng: 121.5, lat: 31.2, status: 'ONLINE' },
            { id: 2, name: 'no location', lng: null, lat: null },
            { id: 3, name: 'unset', lng: 0, lat: 0 },
            { id: 4, name: 'bad', lng: 200, lat: 31 },
            { id: 5, name: 'nan', lng: Number.NaN, lat: 31 },
        ]);
        expect(fc.features).toEqual([
            {
                type: 'Feature',
                geometry: { type: 'Point', coordinates: [121.5, 31.2] },
                properties: { id: 1, status: 'ONLINE' },
            },
        ]);
    });

    it("draws cluster counts with local fonts offline, with a font the online style's glyph server has", () => {
        expect(countFont(undefined)).toEqual(LABEL_FONT);
        const online = {
            version: 8 as const,
            sources: {},
            layers: [
                { id: 'bg', type: 'background' as const },
                {
                    id: 'road-label',
                    type: 'symbol' as const,
                    source: 'x',
                    layout: { 'text-font': ['Noto Sans Regular'] },
                },
            ],
        };
        expect(countFont(online)).toEqual(['Noto Sans Regular']);
    });
});
