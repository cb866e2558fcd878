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
    gx: number;
    gy: number;
    /** Mean web-mercator position, 0..1 across the world. */
    mx: number;
    my: number;
    /** The devices' web-mercator bounds. */
    x0: number;
    x1: number;
    y0: number;
    y1: number;
    lng: number;
    lat: number;
    id: number;
    product_id: number;
    device_name: string;
    status: string;
}

/**
 * Clusters of a subset of the located devices (`where`: a user's projects), computed for one zoom and bounding box:
 * the database groups the devices on a grid of CLUSTER_RADIUS-pixel cells in web-mercator space (the dashboard's 80 px
 * at that zoom), then neighbouring cells whose centres lie within the radius are merged, largest first, so a town that
 * straddles a cell edge is one cluster, not two drawn on top of each other (the greedy pass supercluster makes over
 * points, made here over the few cells in view). One device left alone is answered as that device; a click on a cluster
 * zooms to where its devices' spread is two cells wide (expansionZoom). The platform-wide index (deviceClusters.ts) is one supercluster shared by every administrator;
 * a user's projects need an answer of their own, and the grid needs no index kept per user: it costs one aggregate over
 * the devices in view (devices_located_idx), whatever their number.
 */
export async function gridClusters(db: Db, zoom: number, bbox: Bbox, where: SQL): Promise<ClusterAnswer> {
    const z = Math.max(0, Math.min(Math.floor(zoom), CLUSTER_MAX_ZOOM + 1));
    const [w, s, e, n] = bbox;
    // Past the last clustering zoom every device stands alone, as in supercluster.
    const cellSize = z > CLUSTER_MAX_ZOOM ? 0 : CLUSTER_RADIUS / (CLUSTER_EXTENT * 2 ** z);
    const x = sql`((${devices.longitude} + 180) / 360)`;
    const lat = sql`radians(least(85.0511, greatest(-85.0511, ${devices.latitude})))`;
    const y = sql`(0.5 - ln(tan(pi() / 4 + ${lat} / 2)) / (2 * pi()))`;
    const gx = cellSize ? sql`floor(${x} / ${cellSize})` : sql`${devices.id}`;
    const gy = cellSize ? sql`floor(${y} / ${cellSize})` : sql`0`;
    const cellsQuery = db.execute(sql`
        SELECT count(*)::int AS n, ${gx} AS gx, ${gy} AS gy, avg(${x}) AS mx, avg(${y}) AS my,
               min(${x}) AS x0, max(${x}) AS x1, min(${y}) AS y0, max(${y}) AS y1,
               avg(${devices.longitude}) AS lng, avg(${devices.latitude}) AS lat,
               min(${devices.id}) AS id, min(${devices.productId}) AS product_id,
               min(${devices.deviceName}) AS device_name, min(${devices.status}) AS status
        FROM ${devices}
        WHERE ${locatedAnd(where)}
          AND ${devices.longitude} BETWEEN ${w} AND ${e} AND ${devices.latitude} BETWEEN ${s} AND ${n}
        GROUP BY 2, 3`);
    const [total, cellsResult] = await Promise.all([countLocated(db, where), cellsQuery]);
    const cells = (cellsResult as unknown as { rows: Cell[] }).rows.map((c) => ({
        ...c,
        gx: Number(c.gx),
        gy: Number(c.gy),
        mx: Number(c.mx),
        my: Number(c.my),
        x0: Number(c.x0),
        x1: Number(c.x1),
        y0: Number(c.y0),
        y1: Number(c.y1),
        lng: Number(c.lng),
        lat: Number(c.lat),
    }));
    const merged = cellSize ? mergeNeighbours(cells, cellSize) : cells;
    const clusters: MapCluster[] = [];
    const singles: MapDevice[] = [];
    let truncated = false;
    for (const c of merged) {
        if (c.n > 1) {
            clusters.push({
                clusterId: clusters.length + 1,
                longitude: c.lng,
                latitude: c.lat,
                count: c.n,
                expansionZoom: expansionZoom(c, z),
            });
        } else if (singles.length < MAX_DEVICES_PER_ANSWER) {
            singles.push({
                deviceId: Number(c.id),
                productId: Number(c.product_id),
                deviceName: c.device_name,
                longitude: c.lng,
                latitude: c.lat,
                status: c.status,
            });
        } else truncated = true;
    }
    return { total, zoom: z, clusters, devices: singles, truncated, rebuilding: false };
}

/**
 * The zoom a click on the cluster goes to: the first at which its devices' spread is two cells wide, where the grid
 * starts to part them (at least one zoom in; past the last clustering zoom when they all stand at one spot).
 */
function expansionZoom(c: Cell, z: number): number {
    const spread = Math.max(c.x1 - c.x0, c.y1 - c.y0);
    if (spread <= 0) return CLUSTER_MAX_ZOOM + 1;
    // Two cells wide: neighbouring cells whose centres are within one cell are merged again.
    const parts = Math.ceil(Math.log2((2 * CLUSTER_RADIUS) / (CLUSTER_EXTENT * spread)));
    return Math.min(CLUSTER_MAX_ZOOM + 1, Math.max(z + 1, parts));
}

/**
 * Largest cell first, each takes in the cells of its 3 x 3 neighbourhood whose centre is within one cell size (the
 * cluster radius) of its own, with counts added and positions weighted by count. A cell taken in takes in nothing.
 */
function mergeNeighbours(cells: Cell[], size: number): Cell[] {
    const byKey = new Map(cells.map((c) => [`${c.gx},${c.gy}`, c]));
    const taken = new Set<Cell>();
    const out: Cell[] = [];
    for (const cell of [...cells].sort((a, b) => b.n - a.n)) {
        if (taken.has(cell)) continue;
        taken.add(cell);
        const into = { ...cell };
        for (let dx = -1; dx <= 1; dx++)
            for (let dy = -1; dy <= 1; dy++) {
                const other = byKey.get(`${cell.gx + dx},${cell.gy + dy}`);
                if (!other || taken.has(other)) continue;
                if (Math.hypot(other.mx - cell.mx, other.my - cell.my) > size) continue;
                taken.add(other);
                const n = into.n + other.n;
                for (const k of ['mx', 'my', 'lng', 'lat'] as const)
                    into[k] = (into[k] * into.n + other[k] * other.n) / n;
                into.n = n;
                into.x0 = Math.min(into.x0, other.x0);
                into.x1 = Math.max(into.x1, other.x1);
                into.y0 = Math.min(into.y0, other.y0);
                into.y1 = Math.max(into.y1, other.y1);
            }
        out.push(into);
    }
    return out;
}
