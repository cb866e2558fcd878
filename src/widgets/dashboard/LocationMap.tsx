import { lazy, Suspense, useCallback, useState } from 'react';
import { Box, Card, Typography } from '@mui/material';
import { useDataProvider } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import type { PlatformDataProvider } from '../../engine/choices';
import type { MapClusterAnswer, MapViewQuery } from '../../components/map/deviceLayers';
import type { DevicePoint } from '../../components/map/types';
import { DASHBOARD, WHOLE_MAP_LIMIT, type DeviceLocation } from './api';

/** maplibre-gl and the map code: their own chunk, fetched as soon as the dashboard mounts (Introduce.tsx). */
export const loadDeviceMap = () => import('../../components/map/DeviceMap');
const DeviceMap = lazy(loadDeviceMap);

export const MAP_HEIGHT = 460;

const NO_POINTS: DevicePoint[] = [];

const toPoint = (d: DeviceLocation): DevicePoint => ({
    id: d.deviceId,
    lng: d.longitude,
    lat: d.latitude,
    name: d.deviceName,
    status: d.status,
    productId: d.productId,
});

interface ClusterAnswer extends Omit<MapClusterAnswer, 'devices'> {
    devices: DeviceLocation[];
}

/**
 * 设备分布: the located devices on the map; a device opens its detail. The map's first call
 * (GET /api/device/queryLonLatClusters?whole=WHOLE_MAP_LIMIT) brings the first view: up to WHOLE_MAP_LIMIT located
 * devices every one of them, clustered in the browser from then on; beyond, the server's clusters of that view, and
 * the map asks again as it moves.
 */
export function LocationMap() {
    const navigate = useNavigate();
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const [total, setTotal] = useState<number | null>(null);
    const fetchView = useCallback(
        async ({ zoom, bbox, whole }: MapViewQuery, signal: AbortSignal): Promise<MapClusterAnswer> => {
            const { data: answer } = await dataProvider.invoke<ClusterAnswer>(
                DASHBOARD,
                'deviceClusters',
                { zoom, bbox: bbox.join(','), ...(whole !== undefined ? { whole } : {}) },
                { signal },
            );
            setTotal(answer.total);
            return { ...answer, devices: answer.devices.map(toPoint) };
        },
        [dataProvider],
    );
    const openDevice = useCallback(
        (id: DevicePoint['id'], point?: DevicePoint) => {
            if (point?.productId !== undefined) navigate(`/devInstanceDetail/${point.productId}/${id}`);
        },
        [navigate],
    );

    return (
        <Card variant="outlined" component="section" aria-labelledby="dashboard-map" sx={{ p: 2 }}>
            <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1, mb: 1.5 }}>
                <Typography id="dashboard-map" variant="h6" component="h2" sx={{ fontSize: 17, fontWeight: 600 }}>
                    设备分布
                </Typography>
                {total !== null ? (
                    <Typography variant="body2" color="text.secondary" data-testid="located-count">
                        已定位设备 {total} 台
                    </Typography>
                ) : null}
                <Typography variant="caption" color="text.secondary" sx={{ ml: 'auto' }}>
                    点击聚合点放大，点击设备查看详情
                </Typography>
            </Box>
            <Suspense fallback={<Box sx={{ height: MAP_HEIGHT, bgcolor: '#e6edf4', borderRadius: 1 }} aria-busy />}>
                <DeviceMap
                    points={NO_POINTS}
                    height={MAP_HEIGHT}
                    onPointClick={openDevice}
                    fetchView={fetchView}
                    wholeLimit={WHOLE_MAP_LIMIT}
                />
            </Suspense>
        </Card>
    );
}
