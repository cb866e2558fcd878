import type { ResourceDefinition } from '../src/engine/types';
import products from './products';
import productLogs from './productLogs';
import thingFunctions from './thingFunctions';
import topics from './topics';
import devices from './devices';

/** The registry: every resource the console knows. Adding a resource is one file and one line here. */
export const resources: ResourceDefinition[] = [products, productLogs, thingFunctions, topics, devices];

export default resources;
