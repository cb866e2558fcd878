import { createElement, lazy, type ComponentType } from 'react';
import { Box } from '@mui/material';
import type { Scope } from '../engine/vocabulary';
import { unsuspended } from './unsuspended';

/** What every widget receives: the scope where it sits, the definition's props, and onClose inside a dialog. */
export interface WidgetProps {
    scope: Scope;
    onClose?: () => void;
    [prop: string]: unknown;
}

/** What an input widget receives (input 'widget', type 'position'). */
export interface InputWidgetProps {
    source: string;
    value: unknown;
    onChange: (value: unknown) => void;
    /** Set other form fields (a position fills longitude, latitude, address and region codes). */
    setField: (source: string, value: unknown) => void;
    label: string;
    disabled?: boolean;
    [prop: string]: unknown;
}

/**
 * Named components for what no vocabulary can say: one control or one display each, never a page, table,
 * dialog or tab layout of their own. Each loads in a chunk of its own.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const widgets: Record<string, ComponentType<any>> = {
    /** Input: a thing-model data type with its specs, or with `params` a list of params (struct members recurse). */
    dataTypeSpec: lazy(() => import('./thingModel/DataTypeSpec')),
    /** A product's thing model as TSL JSON with copy ({ productId }): the 查看物模型 dialog's body. */
    thingModelTsl: lazy(() => import('./thingModel/TslView')),
    /** 我的项目: the project cards of the dashboard, each to its overview, and 新建项目. */
    projectCards: lazy(() => import('./dashboard/ProjectCards').then((m) => ({ default: m.ProjectCards }))),
    /**
     * 设备分布: every located device on the map (clusters from the server above 10,000), click to open one. Its chunks
     * (maplibre, about 1 MB) are preloaded at boot on the dashboard's routes (vite.config.ts, routePreloads), and it
     * does not suspend: the map is created as soon as they are there, not when React next reveals a boundary.
     */
    deviceMap: unsuspended(
        () => import('./dashboard/LocationMap').then((m) => ({ default: m.LocationMap })),
        // The card's place, still (a spinner's frames would queue with the map's first one on a software GPU).
        createElement(Box, { sx: { height: 520, borderRadius: 1, bgcolor: '#e6edf4' }, 'aria-busy': true }),
    ),
    /** The answer of a device CSV import ({ answer }): written names, refused rows with line and reason. */
    deviceImportResult: lazy(() => import('./devices/ImportResult').then((m) => ({ default: m.ImportResultView }))),
    /** A JSON document shown indented ({ text, caption }): a logged message's payload. */
    jsonView: lazy(() => import('./JsonView').then((m) => ({ default: m.JsonView }))),
    /** The map picker dialog (MapPickerDialogProps): type 'position' inputs open it. */
    mapPicker: lazy(() => import('../components/map/MapPickerDialog')),
    /** A numeric property's history as a line over the last hour or 24 hours ({ deviceId, identifier, range, label }). */
    propertyHistoryChart: lazy(() => import('./deviceDetail/PropertyHistoryChart')),
    /** Input: checkboxes in labelled rows ({ groups }), the value the ticked ids: a role's rights and menus. */
    checkGroups: lazy(() => import('./people/CheckGroups')),
    /** A pushed camera's live picture ({ resource, deviceId }): the relay's state and, while it plays, HLS via hls.js. */
    liveVideo: lazy(() => import('./video/LivePlayer')),
};

export function registerWidget(name: string, load: () => Promise<{ default: ComponentType<never> }>) {
    widgets[name] = lazy(load as () => Promise<{ default: ComponentType<unknown> }>);
}
