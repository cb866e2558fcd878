import type { GeoGeometry, PolygonCoords, Position } from './geometry';

/** The subset of TopoJSON that mapshaper writes for polygon layers (quantized, delta-encoded arcs). */
export interface Topology {
    type: 'Topology';
    transform?: { scale: [number, number]; translate: [number, number] };
    arcs: number[][][];
    objects: Record<string, { type: 'GeometryCollection'; geometries: TopoGeometry[] }>;
}

export type TopoGeometry =
    | { type: 'Polygon'; arcs: number[][]; properties?: Record<string, unknown> }
    | { type: 'MultiPolygon'; arcs: number[][][]; properties?: Record<string, unknown> }
    | { type: null; properties?: Record<string, unknown> };

export interface TopoFeature<P> {
    properties: P;
    geometry: GeoGeometry;
}

/** Decodes one object of a topology into features; geometries without a shape are dropped. */
export function topologyFeatures<P>(topology: Topology, name: string): TopoFeature<P>[] {
    const object = topology.objects[name];
    if (!object) throw new Error(`TopoJSON has no object "${name}"`);
    const arcs = topology.arcs.map((arc) => decodeArc(arc, topology.transform));
    const ring = (indexes: number[]): Position[] => {
        const out: Position[] = [];
        for (const index of indexes) {
            const arc = index < 0 ? [...arcs[~index]].reverse() : arcs[index];
            // Consecutive arcs share their joining point.
            out.push(...(out.length ? arc.slice(1) : arc));
        }
        return out;
    };
    const polygon = (rings: number[][]): PolygonCoords => rings.map(ring);
    const features: TopoFeature<P>[] = [];
    for (const g of object.geometries) {
        if (g.type === 'Polygon') {
            features.push({
                properties: g.properties as P,
                geometry: { type: 'Polygon', coordinates: polygon(g.arcs) },
            });
        } else if (g.type === 'MultiPolygon') {
            features.push({
                properties: g.properties as P,
                geometry: { type: 'MultiPolygon', coordinates: g.arcs.map(polygon) },
            });
        }
    }
    return features;
}

function decodeArc(arc: number[][], transform: Topology['transform']): Position[] {
    if (!transform) return arc.map((p) => [p[0], p[1]]);
    const [sx, sy] = transform.scale;
    const [tx, ty] = transform.translate;
    let x = 0;
    let y = 0;
    return arc.map((p) => {
        x += p[0];
        y += p[1];
        return [x * sx + tx, y * sy + ty];
    });
}
