import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Scope } from '../engine/vocabulary';

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

type WidgetModule = { default: ComponentType<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Named components for what no vocabulary can say: one control or one display each, never a page, table,
 * dialog or tab layout of their own. Each loads in a chunk of its own; the loader starts that download, the page
 * that opens with the widget in view calls it before it renders (src/engine/preload.ts).
 */
export const widgetLoaders: Record<string, () => Promise<WidgetModule>> = {
    /** Input: a thing-model data type with its specs, or with `params` a list of params (struct members recurse). */
    dataTypeSpec: () => import('./thingModel/DataTypeSpec'),
    /** A product's thing model as TSL JSON with copy ({ productId }): the 查看物模型 dialog's body. */
    thingModelTsl: () => import('./thingModel/TslView'),
    /** 我的项目: the project cards of the dashboard, each to its overview, and 新建项目. */
    projectCards: () => import('./dashboard/ProjectCards').then((m) => ({ default: m.ProjectCards })),
    /** 设备分布: every located device on the map (clusters from the server above 10,000), click to open one. */
    // maplibre's chunk (about 1 MB) downloads beside the widget's own instead of after it has rendered.
    deviceMap: () => {
        void import('../components/map/DeviceMap');
        return import('./dashboard/LocationMap').then((m) => ({ default: m.LocationMap }));
    },
    /** The answer of a device CSV import ({ answer }): written names, refused rows with line and reason. */
    deviceImportResult: () => import('./devices/ImportResult').then((m) => ({ default: m.ImportResultView })),
    /** A JSON document shown indented ({ text, caption }): a logged message's payload. */
    jsonView: () => import('./JsonView').then((m) => ({ default: m.JsonView })),
    /** The map picker dialog (MapPickerDialogProps): type 'position' inputs open it. */
    mapPicker: () => import('../components/map/MapPickerDialog'),
    /** A numeric property's history as a line over the last hour or 24 hours ({ deviceId, identifier, range, label }). */
    propertyHistoryChart: () => import('./deviceDetail/PropertyHistoryChart'),
    /** Input: checkboxes in labelled rows ({ groups, declared? }), the value the ticked ids: a role's rights and menus. */
    checkGroups: () => import('./people/CheckGroups'),
    /** A pushed camera's live picture ({ resource, deviceId }): the relay's state and, while it plays, HLS via hls.js. */
    liveVideo: () => import('./video/LivePlayer'),
};

export const widgets: Record<string, LazyExoticComponent<WidgetModule['default']>> = Object.fromEntries(
    Object.entries(widgetLoaders).map(([name, load]) => [name, lazy(load)]),
);

export function registerWidget(name: string, load: () => Promise<{ default: ComponentType<never> }>) {
    widgetLoaders[name] = load as () => Promise<WidgetModule>;
    widgets[name] = lazy(load as () => Promise<{ default: ComponentType<unknown> }>);
}
