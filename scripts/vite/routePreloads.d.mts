import type { Plugin } from 'vite';

/** scripts/vite/routePreloads.mjs: modulepreload of a lazily loaded module's chunks on the routes that show it. */
export function routePreloads(routes: Record<string, string[]>): Plugin;
