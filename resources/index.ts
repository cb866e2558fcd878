import type { ResourceDefinition } from '../src/engine/types';
import products from './products';
import productLogs from './productLogs';
import thingFunctions from './thingFunctions';

/** The registry: every resource the console knows. Adding a resource is one file and one line here. */
export const resources: ResourceDefinition[] = [products, productLogs, thingFunctions];

export default resources;
