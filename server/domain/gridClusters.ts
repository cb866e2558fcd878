import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices } from '../db/schema';
import type { Bbox } from './dashboard';
import {
    CLUSTER_EXTENT,
    CLUSTER_MAX_ZOOM,
    CLUSTER_RADIUS,
    MAX_DEVICES_PER_ANSWER,
    type ClusterAnswer,
    type MapCluster,
    type MapDevice,
} from './deviceClusters';

const locatedAnd = (where: SQL) =>
    sql`${devices.longitude} IS NOT NULL AND ${devices.latitude} IS NOT NULL AND ${where}`;

/** How many of the devices `where` selects are located (anywhere on the map). */
export async function countLocated(db: Db, where: SQL): Promise<number> {
    const result = await db.execute(sql`SELECT count(*)::int AS total FROM ${devices} WHERE ${locatedAnd(where)}`);
    return Number((result as unknown as { rows: Array<{ total: number }> }).rows[0].total);
}

interface Cell {
    n: number;
    lng: number;
    lat: number;
    id: number;
    product_id: number;
    device_name: string;
    status: string;
}

/**
 * Clusters of a subset of the located devices (`where`: a user's projects), computed by the database for one zoom and
 * bounding box: devices are grouped on a grid of CLUSTER_RADIUS-pixel cells in web-mercator space (the dashboard's
 * 80 px at that zoom), a cell of one device answers that device, a cell of several a cluster at their mean position
 * that splits one zoom further in. The platform-wide index (deviceClusters.ts) is one supercluster shared by every
 * administrator; a user's projects need an answer of their own, and a grid needs no index kept per user: it costs one
 * aggregate over the devices in view (devices_located_idx), whatever their number.
 */
export async function gridClusters(db: Db, zoom: number, bbox: Bbox, where: SQL): Promise<ClusterAnswer> {
    const z = Math.max(0, Math.min(Math.floor(zoom), CLUSTER_MAX_ZOOM + 1));
    const [w, s, e, n] = bbox;
    const located = locatedAnd(where);
    // Past the last clustering zoom every device stands alone, as in supercluster.
    const cellSize = z > CLUSTER_MAX_ZOOM ? 0 : CLUSTER_RADIUS / (CLUSTER_EXTENT * 2 ** z);
    const x = sql`(${devices.longitude} + 180) / 360`;
    const lat = sql`radians(least(85.0511, greatest(-85.0511, ${devices.latitude})))`;
    const y = sql`(0.5 - ln(tan(pi() / 4 + ${lat} / 2)) / (2 * pi()))`;
    const cell = cellSize ? sql`floor(${x} / ${cellSize}), floor(${y} / ${cellSize})` : sql`${devices.id}`;
    const cellsQuery = db.execute(sql`
        SELECT count(*)::int AS n, avg(${devices.longitude}) AS lng, avg(${devices.latitude}) AS lat,
               min(${devices.id}) AS id, min(${devices.productId}) AS product_id,
               min(${devices.deviceName}) AS device_name, min(${devices.status}) AS status
        FROM ${devices}
        WHERE ${located} AND ${devices.longitude} BETWEEN ${w} AND ${e} AND ${devices.latitude} BETWEEN ${s} AND ${n}
        GROUP BY ${cell}`);
    const [total, cellsResult] = await Promise.all([countLocated(db, where), cellsQuery]);
    const clusters: MapCluster[] = [];
    const singles: MapDevice[] = [];
    let truncated = false;
    for (const c of (cellsResult as unknown as { rows: Cell[] }).rows) {
        if (c.n > 1) {
            clusters.push({
                clusterId: clusters.length + 1,
                longitude: Number(c.lng),
                latitude: Number(c.lat),
                count: c.n,
                expansionZoom: z + 1,
            });
        } else if (singles.length < MAX_DEVICES_PER_ANSWER) {
            singles.push({
                deviceId: Number(c.id),
                productId: Number(c.product_id),
                deviceName: c.device_name,
                longitude: Number(c.lng),
                latitude: Number(c.lat),
                status: c.status,
            });
        } else truncated = true;
    }
    return { total, zoom: z, clusters, devices: singles, truncated, rebuilding: false };
}
