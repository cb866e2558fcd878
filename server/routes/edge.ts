import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { edgeAssignmentRoutes } from './edgeAssignments';
import { edgeDriverRoutes } from './edgeDrivers';
import { edgeInstanceRoutes } from './edgeInstances';
import { edgeTabRoutes } from './edgeTabs';

/**
 * /api/edge (general family, code 200): edge drivers (edgeDrivers.ts, packages in edgeDriverFiles.ts), edge
 * instances and their deployment (edgeInstances.ts), the drivers and sub-devices an instance runs
 * (edgeAssignments.ts) and the instance detail's other tabs (edgeTabs.ts).
 */
export function edgeRoutes(services: Services) {
    return new Hono<AppEnv>()
        .route('/driver', edgeDriverRoutes(services))
        .route('/instance', edgeInstanceRoutes(services))
        .route('/instance', edgeAssignmentRoutes(services))
        .route('/instance', edgeTabRoutes(services));
}
