import { lazy, Suspense, useCallback, useMemo } from 'react';
import { Alert, Box, Button, Card, Typography } from '@mui/material';
import { useNavigate } from 'react-router-dom';
import type { DevicePoint } from '../../components/map/types';
import { errorText, useDeviceLocations, type DeviceLocation } from './api';

/** maplibre-gl and the map code: their own chunk, fetched as soon as the dashboard mounts (Introduce.tsx). */
export const loadDeviceMap = () => import('../../components/map/DeviceMap');
const DeviceMap = lazy(loadDeviceMap);

export const MAP_HEIGHT = 460;

const toPoints = (list: readonly DeviceLocation[]): DevicePoint[] =>
    list.map((d) => ({
        id: d.deviceId,
        lng: d.longitude,
        lat: d.latitude,
        name: d.deviceName,
        status: d.status,
    }));

const EMPTY: DevicePoint[] = [];

/** 设备分布: every located device on the map (GET /api/device/queryLonLatList); a device opens its detail. */
export function LocationMap() {
    const navigate = useNavigate();
    const { data, error, isFetching, refetch } = useDeviceLocations();
    const list = data?.list;
    const points = useMemo(() => (list ? toPoints(list) : EMPTY), [list]);
    const openDevice = useCallback(
        (id: DevicePoint['id']) => {
            const device = list?.find((d) => String(d.deviceId) === String(id));
            if (device) navigate(`/devInstanceDetail/${device.productId}/${device.deviceId}`);
        },
        [list, navigate],
    );

    return (
        <Card variant="outlined" component="section" aria-labelledby="dashboard-map" sx={{ p: 2 }}>
            <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1, mb: 1.5 }}>
                <Typography id="dashboard-map" variant="h6" component="h2" sx={{ fontSize: 17, fontWeight: 600 }}>
                    设备分布
                </Typography>
                {data ? (
                    <Typography variant="body2" color="text.secondary" data-testid="located-count">
                        已定位设备 {data.total ?? list?.length ?? 0} 台
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
                    <DeviceMap points={points} loading={!data} height={MAP_HEIGHT} onPointClick={openDevice} />
                </Suspense>
            )}
        </Card>
    );
}
