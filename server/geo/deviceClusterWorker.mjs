// The device map's cluster index, in a worker thread of its own (server/domain/deviceClusters.ts starts it).
// Building a supercluster index over 1,000,000 points takes one to two seconds of CPU: here it never holds up the
// requests the main thread is serving. Plain JavaScript so that tsx, vitest and plain node all start it as is.
import { parentPort } from 'node:worker_threads';
import Supercluster from 'supercluster';

/** @type {Supercluster | undefined} */
let index;

/**
 * supercluster reads `geometry.coordinates` of each input once and keeps `properties` for single points: one reused
 * feature object, with the point's position in the arrays as its properties, spares a million GeoJSON objects.
 */
function* features(lng, lat) {
    const coordinates = [0, 0];
    const feature = { type: 'Feature', geometry: { type: 'Point', coordinates }, properties: 0 };
    for (let i = 0; i < lng.length; i++) {
        coordinates[0] = lng[i];
        coordinates[1] = lat[i];
        feature.properties = i;
        yield feature;
    }
}

/** Iterable with a length: what Supercluster#load walks (it counts MultiPoints first, then reads every feature). */
function points(lng, lat) {
    return { length: lng.length, [Symbol.iterator]: () => features(lng, lat) };
}

function load({ lng, lat, radius, extent, maxZoom }) {
    const started = performance.now();
    index = new Supercluster({ radius, extent, maxZoom, minPoints: 2 });
    index.load(points(lng, lat));
    return { type: 'loaded', ms: Math.round(performance.now() - started) };
}

/** Clusters as flat numbers [lng, lat, count, expansionZoom, clusterId]*, single points as [index, lng, lat]*. */
function query({ id, zoom, bbox, limit }) {
    if (!index) return { type: 'answer', id, clusters: [], points: [], truncated: false };
    const found = index.getClusters(bbox, zoom);
    const clusters = [];
    const single = [];
    let truncated = false;
    for (const f of found) {
        const [lng, lat] = f.geometry.coordinates;
        if (f.properties.cluster) {
            const clusterId = f.properties.cluster_id;
            clusters.push(lng, lat, f.properties.point_count, index.getClusterExpansionZoom(clusterId), clusterId);
        } else if (single.length / 3 < limit) {
            single.push(f.properties, lng, lat);
        } else {
            truncated = true;
        }
    }
    return { type: 'answer', id, clusters, points: single, truncated };
}

parentPort.on('message', (message) => {
    try {
        parentPort.postMessage(message.type === 'load' ? load(message) : query(message));
    } catch (err) {
        parentPort.postMessage({ type: 'error', id: message.id, message: String(err?.stack ?? err) });
    }
});
