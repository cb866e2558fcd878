import { lazy, Suspense } from 'react';
import { Box, CircularProgress, Dialog, DialogContent } from '@mui/material';
import type { GeoApi } from './geoApi';
import type { DeviceMapExtraProps } from './DeviceMap';
import type { DeviceMapProps, MapPickerDialogProps } from './types';

/**
 * The map components for screens to place. Both load lazily, so maplibre-gl (about 1 MB) stays in its own chunk
 * until a map is shown; the picker's code is not even fetched until it first opens.
 */
const LazyPicker = lazy(() => import('./MapPickerDialog'));
const LazyDeviceMap = lazy(() => import('./DeviceMap'));

export function MapPickerDialog(props: MapPickerDialogProps & { api?: GeoApi }) {
    if (!props.open) return null;
    return (
        <Suspense
            fallback={
                <Dialog open onClose={props.onClose} maxWidth="md" fullWidth>
                    <DialogContent sx={{ display: 'flex', justifyContent: 'center', py: 8 }}>
                        <CircularProgress aria-label="地图加载中" />
                    </DialogContent>
                </Dialog>
            }
        >
            <LazyPicker {...props} />
        </Suspense>
    );
}

export function DeviceMap(props: DeviceMapProps & DeviceMapExtraProps) {
    return (
        <Suspense fallback={<Box sx={{ height: props.height ?? 400, bgcolor: '#e6edf4', borderRadius: 1 }} />}>
            <LazyDeviceMap {...props} />
        </Suspense>
    );
}

export type {
    DeviceMapProps,
    DevicePoint,
    DeviceStatus,
    GeoSearchHit,
    MapAddress,
    MapPickerDialogProps,
} from './types';
export type { GeoApi } from './geoApi';
export { createGeoApi } from './geoApi';
export {
    ADDRESS_REQUIRED,
    adcodeParts,
    CONFIRM_POSITION_FIRST,
    parseCoordinateTag,
    toCoordinateTag,
} from './pickerState';
