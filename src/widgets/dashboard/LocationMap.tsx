import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { Alert, Box, Button, Card, Typography } from '@mui/material';
import { useDataProvider } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import type { PlatformDataProvider } from '../../engine/choices';
import type { MapClusterAnswer, MapViewQuery } from '../../components/map/deviceLayers';
import type { DevicePoint } from '../../components/map/types';
import { DASHBOARD, errorText, useDeviceLocations, type DeviceLocation } from './api';

/** maplibre-gl and the map code: their own chunk, fetched as soon as the dashboard mounts (Introduce.tsx). */
export const loadDeviceMap = () => import('../../components/map/DeviceMap');
const DeviceMap = lazy(loadDeviceMap);

export const MAP_HEIGHT = 460;

const toPoint = (d: DeviceLocation): DevicePoint => ({
    id: d.deviceId,
    lng: d.longitude,
    lat: d.latitude,
    name: d.deviceName,
    status: d.status,
    productId: d.productId,
});

const EMPTY: DevicePoint[] = [];

interface ClusterAnswer extends Omit<MapClusterAnswer, 'devices'> {
    devices: DeviceLocation[];
}

/**
 * 设备分布: the located devices on the map; a device opens its detail. Up to WHOLE_MAP_LIMIT devices come whole
 * (GET /api/device/queryLonLatList) and the browser clusters them; beyond, the server clusters what each view shows
 * (GET /api/device/queryLonLatClusters) and the map asks again as it moves.
 */
export function LocationMap() {
    const navigate = useNavigate();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const { data, error, isFetching, refetch } = useDeviceLocations();
    const [serverTotal, setServerTotal] = useState<number | null>(null);
    const list = data?.list;
    const byServer = data?.truncated === true;
    const points = useMemo(() => (list ? list.map(toPoint) : EMPTY), [list]);
    const fetchView = useCallback(
        async ({ zoom, bbox }: MapViewQuery, signal: AbortSignal): Promise<MapClusterAnswer> => {
            const { data: answer } = await dataProvider.invoke<ClusterAnswer>(
                DASHBOARD,
                'deviceClusters',
                { zoom, bbox: bbox.join(',') },
                { signal },
            );
            setServerTotal(answer.total);
            return { ...answer, devices: answer.devices.map(toPoint) };
        },
        [dataProvider],
    );
    const openDevice = useCallback(
        (id: DevicePoint['id'], point?: DevicePoint) => {
            const productId =
                point?.productId ?? list?.find((d) => String(d.deviceId) === String(id))?.productId ?? undefined;
            if (productId !== undefined) navigate(`/devInstanceDetail/${productId}/${id}`);
        },
        [list, navigate],
    );
    // A map that switches between browser and server clustering starts afresh; the first answer only decides the
    // way, so the map created while it was on its way (its basemap loading meanwhile) is kept.
    const way = data ? (byServer ? 'server' : 'browser') : undefined;
    const [mapKey, setMapKey] = useState<{ way?: string; n: number }>({ n: 0 });
    if (way && way !== mapKey.way) setMapKey({ way, n: mapKey.way ? mapKey.n + 1 : mapKey.n });
    const total = byServer ? (serverTotal ?? data?.total) : (data?.total ?? list?.length);

    return (
        <Card variant="outlined" component="section" aria-labelledby="dashboard-map" sx={{ p: 2 }}>
            <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1, mb: 1.5 }}>
                <Typography id="dashboard-map" variant="h6" component="h2" sx={{ fontSize: 17, fontWeight: 600 }}>
                    设备分布
                </Typography>
                {data ? (
                    <Typography variant="body2" color="text.secondary" data-testid="located-count">
                        已定位设备 {total ?? 0} 台
                    </Typography>
                ) : null}
                <Typography variant="caption" color="text.secondary" sx={{ ml: 'auto' }}>
                    点击聚合点放大，点击设备查看详情
                </Typography>
            </Box>
            {error && !data ? (
                <Alert
                    severity="error"
                    action={
                        <Button color="inherit" size="small" disabled={isFetching} onClick={() => void refetch()}>
                            重试
                        </Button>
                    }
                >
                    设备位置加载失败：{errorText(error)}
                </Alert>
            ) : (
                <Suspense fallback={<Box sx={{ height: MAP_HEIGHT, bgcolor: '#e6edf4', borderRadius: 1 }} aria-busy />}>
                    <DeviceMap
                        key={mapKey.n}
                        points={points}
                        loading={!data}
                        height={MAP_HEIGHT}
                        onPointClick={openDevice}
                        fetchView={byServer ? fetchView : undefined}
                    />
                </Suspense>
            )}
        </Card>
    );
}
