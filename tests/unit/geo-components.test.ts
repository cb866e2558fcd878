// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { createElement } from 'react';
import { act, cleanup, configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GeoApi } from '../../src/components/map/geoApi';
import type { GeoSearchHit, MapAddress } from '../../src/components/map/types';
import { FakeMap, FakeMarker } from '../fakes/maplibre';

/**
 * jsdom has no WebGL: maplibre is replaced by a fake that records what the components ask of it and lets the test
 * fire map events. The real map is proven in Chromium (tests/e2e/map.test.ts).
 */
vi.mock('../../src/components/map/maplibre', async () => (await import('../fakes/maplibre')).maplibreModule);

const { MapPickerDialog, DeviceMap } = await import('../../src/components/map/index');

// The first dialog of the file loads the map's modules: on a loaded 2-core machine (CI's main stage) that took more
// than findBy / waitFor's default second. The conditions waited for are unchanged, as in tests/resources/setup.ts.
configure({ asyncUtilTimeout: 10_000 });

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
const pudong: GeoSearchHit = {
    name: '浦东新区',
    level: 'district',
    adcode: '310115',
    province: '上海市',
    city: '上海市',
    district: '浦东新区',
    address: '上海市浦东新区',
    lng: 121.567706,
    lat: 31.245944,
};

function fakeApi(): GeoApi & { reverse: ReturnType<typeof vi.fn>; search: ReturnType<typeof vi.fn> } {
    return {
        config: vi.fn(async () => ({ styleUrl: null })),
        reverse: vi.fn(async (lng: number, lat: number) => {
            if (lng > 123) throw new Error('该位置不在支持的范围内');
            return {
                ...(lng < 121.5
                    ? huangpu
                    : { ...huangpu, district: '浦东新区', adcode: '310115', address: '上海市浦东新区' }),
                lng,
                lat,
            };
        }),
        search: vi.fn(async () => [pudong]),
        outlineUrl: (level, bbox) => `http://test/api/geo/outlines?level=${level}${bbox ? `&bbox=${bbox}` : ''}`,
    };
}

const click = (lng: number, lat: number) => act(() => FakeMap.last!.fire('click', { lngLat: { lng, lat } }));
const confirmButton = () => screen.getByRole('button', { name: '确认位置' });

beforeEach(() => {
    FakeMap.last = undefined;
});
afterEach(cleanup);

describe('MapPickerDialog', () => {
    async function open(value: MapAddress | null = null) {
        const api = fakeApi();
        const onConfirm = vi.fn();
        render(createElement(MapPickerDialog, { open: true, value, onClose: vi.fn(), onConfirm, api }));
        await waitFor(() => expect(FakeMap.last?.handlers.some((h) => h.event === 'click')).toBe(true));
        return { api, onConfirm };
    }

    it('opens on SPEC centre and zoom, offline outlines, district outlines for the view', async () => {
        await open();
        expect(FakeMap.last!.options).toMatchObject({ center: [121.6, 31.2], zoom: 11 });
        const style = FakeMap.last!.style as { sources: Record<string, { data: unknown }>; glyphs?: string };
        expect(style.glyphs).toBeUndefined();
        expect(style.sources.provinces.data).toBe('http://test/api/geo/outlines?level=province');
        expect(FakeMap.last!.districts.setData).toHaveBeenCalledWith(
            'http://test/api/geo/outlines?level=district&bbox=120,30,123,33',
        );
    });

    it('enables 确认位置 once a point is clicked and confirms its address', async () => {
        const { api, onConfirm } = await open();
        expect(confirmButton()).toBeDisabled();
        await click(121.4737123, 31.2304456);
        expect(api.reverse).toHaveBeenCalledWith(121.473712, 31.230446, 1000);
        expect(await screen.findByText('当前地址：上海市黄浦区')).toBeInTheDocument();
        expect(screen.getByText(/行政区划代码 310101/)).toBeInTheDocument();
        expect(FakeMarker.lngLat).toEqual([121.473712, 31.230446]);
        expect(confirmButton()).toBeEnabled();
        fireEvent.click(confirmButton());
        expect(onConfirm).toHaveBeenCalledWith({ ...huangpu, lng: 121.473712, lat: 31.230446 });
    });

    it("refuses a point outside the supported area with the server's message, then '请选择地址'", async () => {
        const { onConfirm } = await open();
        await click(123.5, 30);
        expect(await screen.findByText('当前地址：该位置不在支持的范围内')).toBeInTheDocument();
        fireEvent.click(confirmButton());
        expect(await screen.findByRole('alert')).toHaveTextContent('请选择地址');
        expect(onConfirm).not.toHaveBeenCalled();
    });

    it('searches in 上海市 by default and picks the chosen place', async () => {
        const { api } = await open();
        const input = screen.getByLabelText('搜索地名');
        fireEvent.change(input, { target: { value: '浦东' } });
        fireEvent.keyDown(input, { key: 'Enter' });
        fireEvent.click(await screen.findByText('浦东新区'));
        expect(api.search).toHaveBeenCalledWith('浦东', '上海市');
        expect(FakeMap.last!.flyTo).toHaveBeenCalledWith(expect.objectContaining({ center: [121.567706, 31.245944] }));
        expect(await screen.findByText('当前地址：上海市浦东新区')).toBeInTheDocument();
    });

    it('opens on an earlier choice, ready to confirm', async () => {
        const { onConfirm } = await open(huangpu);
        expect(FakeMap.last!.options).toMatchObject({ center: [121.4737, 31.2304] });
        expect(screen.getByText('当前地址：上海市黄浦区')).toBeInTheDocument();
        fireEvent.click(confirmButton());
        expect(onConfirm).toHaveBeenCalledWith(huangpu);
    });
});

describe('DeviceMap', () => {
    async function mount(points: Parameters<typeof DeviceMap>[0]['points'], onPointClick = vi.fn()) {
        render(createElement(DeviceMap, { points, onPointClick, api: fakeApi() }));
        await waitFor(() => expect(FakeMap.last?.sources.has('devices')).toBe(true));
        return { map: FakeMap.last!, onPointClick };
    }

    it('says 暂无数据 when no device has a location', async () => {
        await mount([{ id: 1, name: 'a', lng: null, lat: null }]);
        expect(screen.getByText('暂无数据')).toBeInTheDocument();
    });

    it('clusters over 80 px from zoom 4 on Beijing, zooms into a clicked cluster, reports a clicked device', async () => {
        const { map, onPointClick } = await mount([{ id: 7, name: '设备7', lng: 116.4, lat: 39.9, status: 'ONLINE' }]);
        expect(screen.queryByText('暂无数据')).toBeNull();
        expect(map.options).toMatchObject({ center: [116.4, 39.9], zoom: 4 });
        expect(map.sources.get('devices')!.spec).toMatchObject({ type: 'geojson', cluster: true, clusterRadius: 80 });
        expect(map.layers).toEqual(['device-clusters', 'device-cluster-count', 'device-points']);

        const cluster = { properties: { cluster_id: 3 }, geometry: { type: 'Point', coordinates: [116, 40] } };
        await act(() => map.fire('click', { features: [cluster] }, 'device-clusters'));
        expect(map.easeTo).toHaveBeenCalledWith({ center: [116, 40], zoom: 9.01 });

        await act(() => map.fire('click', { features: [{ properties: { id: 7 } }] }, 'device-points'));
        expect(onPointClick).toHaveBeenCalledWith(7, expect.objectContaining({ id: 7, name: '设备7' }));
    });
});
