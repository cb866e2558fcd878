import { Suspense, useState } from 'react';
import PlaceIcon from '@mui/icons-material/Place';
import { Alert, Box, Button, FormHelperText, LinearProgress, TextField } from '@mui/material';
import { useFormContext, useFormState, useWatch } from 'react-hook-form';
import { useInput } from 'react-admin';
import type { MapAddress } from '../../components/map/types';
import { widgets } from '../../widgets/registry';
import type { EngineInputProps } from './fieldView';

export type WidgetInputProps = EngineInputProps;

function useSetField() {
    const form = useFormContext();
    // Subscribed here: a value set after a failed 确定 is checked again at once, so its message clears.
    const { isSubmitted } = useFormState();
    return (name: string, value: unknown) =>
        form.setValue(name, value, { shouldDirty: true, shouldValidate: isSubmitted });
}

/** A named input widget of the registry (input 'widget'): it gets the value, onChange and setField. */
export function WidgetInput({ source, label, field, isRequired, helperText, disabled, onChange }: WidgetInputProps) {
    const { field: input, fieldState } = useInput({ source, isRequired, onChange });
    const setField = useSetField();
    const Widget = field.widget ? widgets[field.widget] : undefined;
    if (!Widget) return <Alert severity="error">未注册的输入组件：{field.widget ?? '（未指定）'}</Alert>;
    const message = fieldState.error?.message;
    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }}>
            <Suspense fallback={<LinearProgress aria-label="加载中" sx={{ my: 2 }} />}>
                <Widget
                    {...field.widgetProps}
                    source={source}
                    value={input.value}
                    onChange={(value: unknown) => {
                        input.onChange(value);
                        input.onBlur();
                    }}
                    setField={setField}
                    label={label}
                    disabled={disabled}
                    isRequired={isRequired}
                />
            </Suspense>
            <FormHelperText error={!!message}>{message ?? helperText ?? ' '}</FormHelperText>
        </Box>
    );
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Province, city and district codes of an adcode (SPEC: slices 0-2, 2-4, 4-6). */
export function regionCodes(adcode: string) {
    return { province: adcode.slice(0, 2), city: adcode.slice(2, 4), area: adcode.slice(4, 6) };
}

/**
 * Type 'position': the chosen point (and its address) with 选择位置, which opens the map picker widget
 * ('mapPicker'). Confirming fills `position`'s longitude, latitude, address, the province / city / area codes from
 * the point's adcode, and the adcode; the field itself holds 'lng,lat'.
 */
export function PositionInput({ source, label, field, isRequired, helperText, disabled, onChange }: WidgetInputProps) {
    const spec = field.position ?? { longitude: 'longitude', latitude: 'latitude' };
    const { field: input, fieldState, id } = useInput({ source, isRequired, onChange });
    const setField = useSetField();
    const [open, setOpen] = useState(false);
    const [lng, lat, address, adcode] = useWatch({
        name: [spec.longitude, spec.latitude, spec.address ?? spec.longitude, spec.adcode ?? spec.longitude],
    }) as unknown[];
    const { errors } = useFormState({ name: [spec.longitude, spec.latitude] });
    const Picker = widgets.mapPicker;

    const chosen = present(lng) && present(lat);
    const point = chosen ? `${String(lng)}, ${String(lat)}` : '';
    const place = spec.address && present(address) ? String(address) : '';
    const shown = place ? `${place}（${point}）` : point;

    const confirm = (picked: MapAddress) => {
        setField(spec.longitude, picked.lng);
        setField(spec.latitude, picked.lat);
        if (spec.address) setField(spec.address, picked.address);
        const codes = regionCodes(picked.adcode ?? '');
        if (spec.province) setField(spec.province, codes.province);
        if (spec.city) setField(spec.city, codes.city);
        if (spec.area) setField(spec.area, codes.area);
        if (spec.adcode) setField(spec.adcode, picked.adcode);
        if (source !== spec.longitude && source !== spec.latitude) input.onChange(`${picked.lng},${picked.lat}`);
        input.onBlur();
        setOpen(false);
    };

    const fieldError = (name: string) => (errors[name] as { message?: string } | undefined)?.message;
    const message = fieldState.error?.message ?? fieldError(spec.longitude) ?? fieldError(spec.latitude);
    return (
        <Box className={`ra-input ra-input-${source}`} sx={{ my: 1 }}>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
                <TextField
                    id={id}
                    label={label}
                    required={isRequired}
                    value={shown}
                    placeholder="请选择位置"
                    size="small"
                    fullWidth
                    error={!!message}
                    slotProps={{ input: { readOnly: true }, inputLabel: { shrink: true } }}
                />
                <Button
                    variant="outlined"
                    startIcon={<PlaceIcon />}
                    onClick={() => setOpen(true)}
                    disabled={disabled}
                    sx={{ flexShrink: 0, height: 40 }}
                >
                    选择位置
                </Button>
            </Box>
            <FormHelperText error={!!message} sx={{ mx: 1.75 }}>
                {message ?? helperText ?? ' '}
            </FormHelperText>
            {open && Picker ? (
                <Suspense fallback={<LinearProgress aria-label="地图加载中" />}>
                    <Picker
                        open
                        value={
                            chosen
                                ? {
                                      lng: Number(lng),
                                      lat: Number(lat),
                                      ...(place ? { address: place } : {}),
                                      ...(spec.adcode && present(adcode) ? { adcode: String(adcode) } : {}),
                                  }
                                : null
                        }
                        onClose={() => setOpen(false)}
                        onConfirm={confirm}
                    />
                </Suspense>
            ) : null}
        </Box>
    );
}
