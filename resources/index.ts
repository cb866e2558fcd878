import type { ResourceDefinition } from '../src/engine/types';

/**
 * The registry: every definition file in this folder, found by the bundler (import.meta.glob), so adding a
 * resource is adding its file. Each file's default export is one definition; files are taken in name order.
 */
const modules = import.meta.glob<{ default: ResourceDefinition }>(['./*.ts', './*.tsx', '!./index.ts'], {
    eager: true,
});

export const resources: ResourceDefinition[] = Object.keys(modules)
    .sort()
    .map((file) => modules[file].default)
    .filter((definition): definition is ResourceDefinition => !!definition && typeof definition.name === 'string');

export default resources;
