/**
 * A page that renders the map components alone, for development (`npx vite`, then open
 * /src/components/map/harness/map-harness.html) and for tests/e2e/map.test.ts. Not part of the console build.
 *   ?view=picker               the map picker dialog (button 打开地图选点)
 *   ?view=devices&n=100000     the device map with n generated devices (n=0: the empty state)
 *   ?view=api&mode=whole       the platform's located devices fetched whole (mode=server: server clusters;
 *                              mode=base: no devices, the base map alone)
 * window.__harness exposes the maplibre map, the confirmed address and the first-render time.
 */
import { useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Box, Button, Typography } from '@mui/material';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { MapClusterAnswer, MapViewQuery } from '../deviceLayers';
import { DeviceMap, MapPickerDialog, type DevicePoint, type MapAddress } from '../index';

interface Harness {
    map?: MapLibreMap;
    confirmed?: MapAddress;
    clicked?: DevicePoint['id'];
    points?: DevicePoint[];
    /** ms from navigation start, and from handing the points to the map, to the first idle frame. */
    firstRender?: {
        sinceNavigation: number;
        sincePoints: number;
        styleLoaded: number;
        devicesLoaded: number;
        points: number;
    };
}
const harness: Harness = {};
(window as unknown as { __harness: Harness }).__harness = harness;

const CITIES: Array<[number, number, number]> = [
    [116.4, 39.9, 10],
    [121.47, 31.23, 10],
    [113.26, 23.13, 8],
    [114.06, 22.54, 8],
    [104.07, 30.67, 6],
    [106.55, 29.56, 6],
    [120.16, 30.27, 6],
    [118.8, 32.06, 5],
    [114.3, 30.59, 5],
    [108.94, 34.34, 5],
    [117.2, 39.13, 4],
    [113.62, 34.75, 4],
    [112.94, 28.23, 4],
    [126.64, 45.76, 3],
    [123.43, 41.8, 3],
    [87.62, 43.82, 2],
    [91.11, 29.65, 1],
    [102.71, 25.04, 3],
    [110.35, 20.02, 2],
    [103.83, 36.06, 2],
];

/** Deterministic devices clustered around cities (mulberry32), so runs are comparable. */
function generate(n: number, seed = 1): DevicePoint[] {
    let a = seed;
    const rand = () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand());
    const total = CITIES.reduce((s, c) => s + c[2], 0);
    const statuses = ['ONLINE', 'ONLINE', 'OFFLINE', 'INACTIVE', 'DISABLE'];
    const out: DevicePoint[] = [];
    for (let i = 0; i < n; i++) {
        let r = rand() * total;
        const city = CITIES.find((c) => (r -= c[2]) < 0) ?? CITIES[0];
        out.push({
            id: i + 1,
            name: `设备${i + 1}`,
            lng: Math.round((city[0] + gauss() * 0.6) * 1e6) / 1e6,
            lat: Math.round((city[1] + gauss() * 0.45) * 1e6) / 1e6,
            status: statuses[Math.floor(rand() * statuses.length)],
        });
    }
    return out;
}

function PickerView() {
    const [open, setOpen] = useState(false);
    const [confirmed, setConfirmed] = useState<MapAddress | null>(null);
    return (
        <Box sx={{ p: 3 }}>
            <Button variant="contained" onClick={() => setOpen(true)}>
                打开地图选点
            </Button>
            <Typography component="pre" data-testid="confirmed" sx={{ mt: 2 }}>
                {confirmed ? JSON.stringify(confirmed, null, 2) : '尚未确认位置'}
            </Typography>
            <MapPickerDialog
                open={open}
                value={confirmed}
                onClose={() => setOpen(false)}
                onConfirm={(address) => {
                    harness.confirmed = address;
                    setConfirmed(address);
                    setOpen(false);
                }}
            />
        </Box>
    );
}

function DevicesView({ n }: { n: number }) {
    const [points] = useState(() => generate(n));
    harness.points = points;
    const [handedAt] = useState(() => performance.now());
    const [clicked, setClicked] = useState<DevicePoint['id'] | null>(null);
    const onLoad = (map: MapLibreMap) => {
        harness.map = map;
        const styleLoaded = performance.now();
        let devicesLoaded = 0;
        const onData = (e: { sourceId?: string; isSourceLoaded?: boolean }) => {
            if (e.sourceId !== 'devices' || !e.isSourceLoaded) return;
            devicesLoaded = performance.now();
            map.off('sourcedata', onData);
        };
        map.on('sourcedata', onData);
        map.once('idle', () => {
            const now = performance.now();
            harness.firstRender = {
                sinceNavigation: now,
                sincePoints: now - handedAt,
                styleLoaded,
                devicesLoaded,
                points: n,
            };
        });
    };
    return (
        <Box sx={{ p: 3 }}>
            <Typography sx={{ mb: 1 }}>
                设备分布（{n} 台）{clicked !== null && <span data-testid="clicked">已点击设备 {String(clicked)}</span>}
            </Typography>
            <DeviceMap
                points={points}
                height={640}
                onLoad={onLoad}
                onPointClick={(id) => {
                    harness.clicked = id;
                    setClicked(id);
                }}
            />
        </Box>
    );
}

interface Located {
    deviceId: number;
    productId: number;
    deviceName: string;
    longitude: number;
    latitude: number;
    status: string;
}

const toPoint = (d: Located): DevicePoint => ({
    id: d.deviceId,
    productId: d.productId,
    name: d.deviceName,
    lng: d.longitude,
    lat: d.latitude,
    status: d.status,
});

/** The platform's answer's data, or an error naming the status. */
async function platformData<T>(url: string, signal?: AbortSignal): Promise<T> {
    const res = await fetch(url, { signal, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return ((await res.json()) as { data: T }).data;
}

/**
 * The device map over the platform's devices (tests/bench/mapRender.ts): `whole` fetches every located device at
 * once and clusters them in the browser (the dashboard's way up to 10,000 devices, and its only way before server
 * clusters); `server` asks the server for the clusters of each view.
 */
function ApiView({ mode }: { mode: 'whole' | 'server' | 'base' }) {
    const [points, setPoints] = useState<DevicePoint[] | null>(mode === 'whole' ? null : []);
    const [error, setError] = useState<string | null>(null);
    const [clicked, setClicked] = useState<DevicePoint | null>(null);
    useEffect(() => {
        if (mode !== 'whole') return;
        platformData<{ list: Located[] }>('/api/device/queryLonLatList').then(
            (data) => setPoints(data.list.map(toPoint)),
            (err: Error) => setError(err.message),
        );
    }, [mode]);
    const fetchView = useCallback(async ({ zoom, bbox }: MapViewQuery, signal: AbortSignal) => {
        const data = await platformData<Omit<MapClusterAnswer, 'devices'> & { devices: Located[] }>(
            `/api/device/queryLonLatClusters?zoom=${zoom}&bbox=${bbox.join(',')}`,
            signal,
        );
        return { ...data, devices: data.devices.map(toPoint) };
    }, []);
    return (
        <Box sx={{ p: 3 }}>
            <Typography sx={{ mb: 1 }}>
                设备分布（{{ whole: '整图', server: '服务端聚合', base: '底图' }[mode]}）
                {clicked && (
                    <span data-testid="clicked">
                        已点击设备 {String(clicked.id)}（产品 {String(clicked.productId)}）
                    </span>
                )}
            </Typography>
            {error && <Typography color="error">{error}</Typography>}
            <DeviceMap
                points={points ?? []}
                loading={points === null}
                height={640}
                onLoad={(map) => (harness.map = map)}
                onPointClick={(_, point) => setClicked(point ?? null)}
                fetchView={mode === 'server' ? fetchView : undefined}
            />
        </Box>
    );
}

const params = new URLSearchParams(location.search);
const view = params.get('view');
createRoot(document.getElementById('root')!).render(
    view === 'devices' ? (
        <DevicesView n={Number(params.get('n') ?? 2000)} />
    ) : view === 'api' ? (
        <ApiView mode={(['server', 'base'] as const).find((m) => m === params.get('mode')) ?? 'whole'} />
    ) : (
        <PickerView />
    ),
);
