import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import {
    Alert,
    Box,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    IconButton,
    InputAdornment,
    List,
    ListItemButton,
    ListItemText,
    Paper,
    TextField,
    Typography,
} from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import type { Map as MapLibreMap, Marker } from 'maplibre-gl';
import { createGeoApi, type GeoApi } from './geoApi';
import { maplibregl } from './maplibre';
import {
    canConfirm,
    confirmPick,
    initialPickerState,
    PICKER_CENTER,
    PICKER_CITY,
    PICKER_RADIUS,
    PICKER_ZOOM,
    pickerReducer,
    statusText,
} from './pickerState';
import type { GeoSearchHit, MapPickerDialogProps } from './types';
import { COLORS } from './style';
import { useBaseMap } from './useBaseMap';

const ZOOM_BY_LEVEL: Record<GeoSearchHit['level'], number> = { province: 6, city: 9, district: 11, poi: 15 };
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** SPEC "Map picker dialog": search, click to pick, the reverse-geocoded address, '确认位置'. */
export default function MapPickerDialog(props: MapPickerDialogProps & { api?: GeoApi }) {
    return (
        <Dialog open={props.open} onClose={props.onClose} maxWidth="md" fullWidth aria-labelledby="map-picker-title">
            {/* The content (and its map) mounts with each opening, so every opening starts from `value`. */}
            <PickerContent {...props} />
        </Dialog>
    );
}

function PickerContent(props: MapPickerDialogProps & { api?: GeoApi }) {
    const { value, onClose, onConfirm, city = PICKER_CITY, title = '选择位置' } = props;
    const api = useMemo(() => props.api ?? createGeoApi(), [props.api]);
    const [state, dispatch] = useReducer(pickerReducer, value, initialPickerState);
    const [confirmError, setConfirmError] = useState<string | null>(null);
    const container = useRef<HTMLDivElement | null>(null);
    const start = useRef<[number, number]>(value ? [value.lng, value.lat] : PICKER_CENTER);
    const { map, error: mapError } = useBaseMap(container, { api, center: start.current, zoom: PICKER_ZOOM });

    const pick = useCallback(
        (lng: number, lat: number) => {
            const p = { lng: round6(lng), lat: round6(lat) };
            dispatch({ type: 'pick', ...p });
            setConfirmError(null);
            api.reverse(p.lng, p.lat, PICKER_RADIUS).then(
                (address) => dispatch({ type: 'located', address: { ...address, ...p } }),
                (err: Error) => dispatch({ type: 'failed', ...p, message: err.message }),
            );
        },
        [api],
    );

    // An earlier point handed in without its address (a stored 'lat,lng' tag) is located again, so it can be
    // confirmed as it is.
    const relocated = useRef(false);
    useEffect(() => {
        if (relocated.current || !value || (value.address && value.adcode)) return;
        relocated.current = true;
        pick(value.lng, value.lat);
    }, [value, pick]);

    useMarker(map, state.point);
    useEffect(() => {
        if (!map) return;
        const onClick = (e: { lngLat: { lng: number; lat: number } }) => pick(e.lngLat.lng, e.lngLat.lat);
        map.on('click', onClick);
        map.getCanvas().style.cursor = 'crosshair';
        return () => {
            map.off('click', onClick);
        };
    }, [map, pick]);

    const choose = (hit: GeoSearchHit) => {
        map?.flyTo({ center: [hit.lng, hit.lat], zoom: ZOOM_BY_LEVEL[hit.level], duration: 600 });
        pick(hit.lng, hit.lat);
    };

    const confirm = () => {
        const outcome = confirmPick(state);
        if (!outcome.ok) {
            setConfirmError(outcome.message);
            return;
        }
        onConfirm(outcome.value);
    };

    return (
        <>
            <DialogTitle id="map-picker-title">{title}</DialogTitle>
            <DialogContent sx={{ position: 'relative' }}>
                <PlaceSearch api={api} city={city} onChoose={choose} />
                <Box
                    ref={container}
                    data-testid="map-picker-map"
                    sx={{ height: 420, borderRadius: 1, overflow: 'hidden', bgcolor: COLORS.background, mt: 1 }}
                />
                {mapError && (
                    <Alert severity="warning" sx={{ mt: 1 }}>
                        {mapError}
                    </Alert>
                )}
                <Box sx={{ mt: 1.5, minHeight: 48 }} data-testid="map-picker-status">
                    <Typography variant="body2" color={state.error ? 'error' : 'text.primary'}>
                        当前地址：{statusText(state)}
                    </Typography>
                    {state.point && (
                        <Typography variant="caption" color="text.secondary">
                            经度 {state.point.lng}，纬度 {state.point.lat}
                            {state.address ? `，行政区划代码 ${state.address.adcode}` : ''}
                        </Typography>
                    )}
                </Box>
                {confirmError && (
                    <Alert severity="error" sx={{ mt: 1 }} role="alert">
                        {confirmError}
                    </Alert>
                )}
            </DialogContent>
            <DialogActions>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" disabled={!canConfirm(state)} onClick={confirm}>
                    确认位置
                </Button>
            </DialogActions>
        </>
    );
}

/** One draggable-free marker on the chosen point. */
function useMarker(map: MapLibreMap | null, point: { lng: number; lat: number } | null) {
    const marker = useRef<Marker | null>(null);
    useEffect(() => {
        if (!map) return;
        if (!point) {
            marker.current?.remove();
            marker.current = null;
            return;
        }
        marker.current ??= new maplibregl.Marker({ color: '#1677ff' });
        marker.current.setLngLat([point.lng, point.lat]).addTo(map);
    }, [map, point]);
    useEffect(
        () => () => {
            marker.current?.remove();
            marker.current = null;
        },
        [],
    );
}

function PlaceSearch({ api, city, onChoose }: { api: GeoApi; city: string; onChoose: (hit: GeoSearchHit) => void }) {
    const [keyword, setKeyword] = useState('');
    const [hits, setHits] = useState<GeoSearchHit[] | null>(null);
    const [message, setMessage] = useState<string | null>(null);

    const search = async () => {
        const q = keyword.trim();
        if (!q) {
            setHits(null);
            setMessage('请输入搜索关键字');
            return;
        }
        try {
            const found = await api.search(q, city);
            setHits(found);
            setMessage(found.length ? null : '未找到相关地点');
        } catch (err) {
            setHits(null);
            setMessage((err as Error).message);
        }
    };

    return (
        <Box sx={{ position: 'relative' }}>
            <TextField
                size="small"
                fullWidth
                placeholder={`搜索地名（默认${city}），如 浦东新区`}
                value={keyword}
                onChange={(e) => setKeyword(e.target.value)}
                onKeyDown={(e) => {
                    if (e.key === 'Enter') void search();
                    if (e.key === 'Escape') setHits(null);
                }}
                slotProps={{
                    htmlInput: { 'aria-label': '搜索地名', maxLength: 50 },
                    input: {
                        endAdornment: (
                            <InputAdornment position="end">
                                <IconButton aria-label="搜索" edge="end" onClick={() => void search()}>
                                    <SearchIcon />
                                </IconButton>
                            </InputAdornment>
                        ),
                    },
                }}
            />
            {message && (
                <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
                    {message}
                </Typography>
            )}
            {hits && hits.length > 0 && (
                <Paper
                    elevation={4}
                    sx={{
                        position: 'absolute',
                        zIndex: 2,
                        left: 0,
                        right: 0,
                        top: 42,
                        maxHeight: 280,
                        overflow: 'auto',
                    }}
                >
                    <List dense aria-label="搜索结果">
                        {hits.map((hit) => (
                            <ListItemButton
                                key={hit.adcode}
                                onClick={() => {
                                    setHits(null);
                                    onChoose(hit);
                                }}
                            >
                                <ListItemText primary={hit.name} secondary={hit.address} />
                            </ListItemButton>
                        ))}
                    </List>
                </Paper>
            )}
        </Box>
    );
}
