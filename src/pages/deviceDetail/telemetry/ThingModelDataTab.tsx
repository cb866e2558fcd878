import { Box, Tab, Tabs } from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import type { DeviceTabProps } from '../types';
import { EventsPanel } from './EventsPanel';
import { PropertiesPanel } from './PropertiesPanel';
import { ServicesPanel } from './ServicesPanel';

const SUB_TABS = [
    { id: 'property', label: '属性' },
    { id: 'event', label: '事件' },
    { id: 'service', label: '服务' },
] as const;
type SubTab = (typeof SUB_TABS)[number]['id'];

/** The sub-tab lives in the query string (?dataTab=event), beside the page's own params, so it can be bookmarked. */
export const SUB_TAB_PARAM = 'dataTab';

/**
 * Thing-model data (物模型数据): properties with their latest values and history, the device's events within a
 * time range, and the product's services with the device's service calls.
 */
export function ThingModelDataTab({ device }: DeviceTabProps) {
    const [search, setSearch] = useSearchParams();
    const raw = search.get(SUB_TAB_PARAM);
    const tab: SubTab = SUB_TABS.some((t) => t.id === raw) ? (raw as SubTab) : 'property';
    const choose = (next: SubTab) =>
        setSearch((current) => {
            const params = new URLSearchParams(current);
            if (next === 'property') params.delete(SUB_TAB_PARAM);
            else params.set(SUB_TAB_PARAM, next);
            return params;
        });

    return (
        <Box>
            <Tabs
                value={tab}
                onChange={(_, next: SubTab) => choose(next)}
                aria-label="物模型数据"
                sx={{ mb: 2, minHeight: 36, '& .MuiTab-root': { minHeight: 36, py: 0.5 } }}
            >
                {SUB_TABS.map((t) => (
                    <Tab key={t.id} value={t.id} label={t.label} />
                ))}
            </Tabs>
            {tab === 'property' && <PropertiesPanel deviceId={device.deviceId} />}
            {tab === 'event' && <EventsPanel deviceId={device.deviceId} />}
            {tab === 'service' && (
                <ServicesPanel
                    productId={device.productId}
                    productKey={device.productKey}
                    deviceName={device.deviceName}
                />
            )}
        </Box>
    );
}
