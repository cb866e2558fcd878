import type { ResourceDefinition } from '../src/engine/types';
import products from './products';
import productLogs from './productLogs';
import thingFunctions from './thingFunctions';
import topics from './topics';
import devices from './devices';
import deviceDetail from './deviceDetail';
import deviceTelemetry from './deviceTelemetry';
import projects from './projects';
import groups from './groups';
import dashboard from './dashboard';

/** The registry: every resource the console knows. Adding a resource is one file and one line here. */
export const resources: ResourceDefinition[] = [
    products,
    productLogs,
    thingFunctions,
    topics,
    devices,
    deviceDetail,
    deviceTelemetry,
    projects,
    groups,
    dashboard,
];

export default resources;
