/**
 * Plane geometry on longitude / latitude, enough for administrative lookups: rings as flat coordinate arrays,
 * even-odd point-in-polygon, distances in metres from a local equirectangular projection (accurate to well under
 * 1% over the few kilometres a search radius covers), and a coarse grid index.
 */

/** A ring as [lng0, lat0, lng1, lat1, ...]; a shape is every ring of a (Multi)Polygon, holes included. */
export type Ring = Float64Array;
export type BBox = [minLng: number, minLat: number, maxLng: number, maxLat: number];

export type Position = number[];
export type PolygonCoords = Position[][];
export type GeoGeometry =
    { type: 'Polygon'; coordinates: PolygonCoords } | { type: 'MultiPolygon'; coordinates: PolygonCoords[] };

export function ringsOf(geometry: GeoGeometry): Ring[] {
    const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
    return polygons.flatMap((polygon) => polygon.map((ring) => Float64Array.from(ring.flat())));
}

export function bboxOf(rings: Ring[]): BBox {
    const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
    for (const r of rings) {
        for (let i = 0; i < r.length; i += 2) {
            if (r[i] < box[0]) box[0] = r[i];
            if (r[i + 1] < box[1]) box[1] = r[i + 1];
            if (r[i] > box[2]) box[2] = r[i];
            if (r[i + 1] > box[3]) box[3] = r[i + 1];
        }
    }
    return box;
}

/**
 * Even-odd crossing count over all rings: inside an outer ring and outside its holes. Across the parts of a
 * MultiPolygon, which do not overlap, the same count holds.
 */
export function contains(rings: Ring[], lng: number, lat: number): boolean {
    let inside = false;
    for (const r of rings) {
        const n = r.length;
        for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
            const xi = r[i];
            const yi = r[i + 1];
            const xj = r[j];
            const yj = r[j + 1];
            if (yi > lat !== yj > lat && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
        }
    }
    return inside;
}

/**
 * A point for the shape when its source names none: the area centroid of its largest ring when that lies inside,
 * else the middle of the widest inside stretch along the ring's middle latitude.
 */
export function centreOf(rings: Ring[]): [number, number] {
    let best: Ring | undefined;
    let bestArea = 0;
    let cx = 0;
    let cy = 0;
    for (const r of rings) {
        let a = 0;
        let x = 0;
        let y = 0;
        for (let i = 0, j = r.length - 2; i < r.length; j = i, i += 2) {
            const f = r[j] * r[i + 1] - r[i] * r[j + 1];
            a += f;
            x += (r[j] + r[i]) * f;
            y += (r[j + 1] + r[i + 1]) * f;
        }
        if (Math.abs(a) > bestArea) {
            bestArea = Math.abs(a);
            best = r;
            cx = x / (3 * a);
            cy = y / (3 * a);
        }
    }
    if (!best) return [0, 0];
    if (contains(rings, cx, cy)) return [cx, cy];
    const [minX, minY, maxX, maxY] = bboxOf([best]);
    const midY = (minY + maxY) / 2;
    const xs: number[] = [];
    for (let i = 0, j = best.length - 2; i < best.length; j = i, i += 2) {
        const yi = best[i + 1];
        const yj = best[j + 1];
        if (yi > midY !== yj > midY) xs.push(((best[j] - best[i]) * (midY - yi)) / (yj - yi) + best[i]);
    }
    xs.sort((a, b) => a - b);
    let span: [number, number] = [minX, maxX];
    for (let k = 0; k + 1 < xs.length; k += 2)
        if (xs[k + 1] - xs[k] > span[1] - span[0] || k === 0) span = [xs[k], xs[k + 1]];
    return [(span[0] + span[1]) / 2, midY];
}

const METRES_PER_DEGREE_LAT = 110_574;
const METRES_PER_DEGREE_LNG_EQUATOR = 111_320;

/** Metres from the point to the nearest edge of any ring. */
export function distanceToEdges(rings: Ring[], lng: number, lat: number): number {
    const kx = METRES_PER_DEGREE_LNG_EQUATOR * Math.cos((lat * Math.PI) / 180);
    const ky = METRES_PER_DEGREE_LAT;
    let best = Infinity;
    for (const r of rings) {
        for (let i = 0; i + 3 < r.length; i += 2) {
            const ax = (r[i] - lng) * kx;
            const ay = (r[i + 1] - lat) * ky;
            const bx = (r[i + 2] - lng) * kx;
            const by = (r[i + 3] - lat) * ky;
            const dx = bx - ax;
            const dy = by - ay;
            const len2 = dx * dx + dy * dy;
            const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
            const px = ax + t * dx;
            const py = ay + t * dy;
            const d = px * px + py * py;
            if (d < best) best = d;
        }
    }
    return Math.sqrt(best);
}

/** Degrees of latitude and longitude that `metres` spans at `lat`. */
export function degreesAround(lat: number, metres: number): { dLng: number; dLat: number } {
    const cos = Math.max(0.01, Math.cos((lat * Math.PI) / 180));
    return { dLng: metres / (METRES_PER_DEGREE_LNG_EQUATOR * cos), dLat: metres / METRES_PER_DEGREE_LAT };
}

export const intersects = (a: BBox, b: BBox) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];

/** Items bucketed by the grid cells their bounding boxes cover; a query reads the cells a box covers. */
export class GridIndex<T extends { bbox: BBox }> {
    private readonly cells = new Map<number, T[]>();

    constructor(
        readonly items: readonly T[],
        private readonly cellDegrees = 0.5,
    ) {
        for (const item of items) {
            this.forCells(item.bbox, (key) => {
                const list = this.cells.get(key);
                if (list) list.push(item);
                else this.cells.set(key, [item]);
            });
        }
    }

    private forCells(box: BBox, fn: (key: number) => void): void {
        const s = this.cellDegrees;
        for (let x = Math.floor(box[0] / s); x <= Math.floor(box[2] / s); x++) {
            for (let y = Math.floor(box[1] / s); y <= Math.floor(box[3] / s); y++) fn((x + 1000) * 10_000 + (y + 1000));
        }
    }

    /** Items whose bounding box meets `box`, each once. */
    query(box: BBox): T[] {
        const seen = new Set<T>();
        this.forCells(box, (key) => {
            for (const item of this.cells.get(key) ?? []) if (intersects(item.bbox, box)) seen.add(item);
        });
        return [...seen];
    }
}
