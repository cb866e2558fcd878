import { fromRoot } from '../paths';
import { Worker } from 'node:worker_threads';
import { and, asc, gt, inArray, isNotNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices } from '../db/schema';
import type { Bbox } from './dashboard';
import { deviceMapVersion } from './deviceMapCache';

/** The dashboard's clusters: 80 px on maplibre's 512-px tiles, devices one by one past zoom 14 (deviceLayers.ts). */
export const CLUSTER_RADIUS = 80;
export const CLUSTER_EXTENT = 512;
export const CLUSTER_MAX_ZOOM = 14;
/** Single devices in one answer, at most: past zoom 14 a screen holds a few dozen even in a dense city. */
export const MAX_DEVICES_PER_ANSWER = 5000;

const STATUSES = ['ONLINE', 'OFFLINE', 'INACTIVE', 'DISABLE'] as const;
/** A path, not a URL: under jsdom, URL is jsdom's own, which Worker does not take. */
const WORKER_FILE = fromRoot('server', 'geo', 'deviceClusterWorker.mjs');

export interface MapCluster {
    clusterId: number;
    longitude: number;
    latitude: number;
    count: number;
    /** The zoom at which this cluster splits: a click zooms there. */
    expansionZoom: number;
}

export interface MapDevice {
    deviceId: number;
    productId: number;
    deviceName: string;
    longitude: number;
    latitude: number;
    status: string;
}

export interface ClusterAnswer {
    /** Located devices in the index (all of them, not only those in view). */
    total: number;
    zoom: number;
    clusters: MapCluster[];
    devices: MapDevice[];
    /** More single devices were in view than MAX_DEVICES_PER_ANSWER. */
    truncated: boolean;
    /** Devices changed since this index was built; a newer one is on its way (ask again shortly). */
    rebuilding: boolean;
}

type WorkerAnswer = { id: number; clusters: number[]; points: number[]; truncated: boolean };

/** One worker thread holding one built index; its answers come back in request order. */
class ClusterWorker {
    private seq = 0;
    private readonly waiting = new Map<number, { resolve: (a: WorkerAnswer) => void; reject: (e: Error) => void }>();

    private constructor(private readonly worker: Worker) {
        worker.on('message', (m: WorkerAnswer & { type: string; message?: string }) => {
            const entry = this.waiting.get(m.id);
            if (!entry) return;
            this.waiting.delete(m.id);
            if (m.type === 'error') entry.reject(new Error(m.message));
            else entry.resolve(m);
        });
        worker.on('error', (err) => this.failAll(err));
    }

    static start(lng: Float64Array, lat: Float64Array): Promise<ClusterWorker> {
        const worker = new Worker(WORKER_FILE);
        // The index must not keep a server (or a test run) alive.
        worker.unref();
        return new Promise((resolve, reject) => {
            const onMessage = (m: { type: string; message?: string }) => {
                worker.off('error', onError);
                if (m.type === 'loaded') resolve(new ClusterWorker(worker));
                else {
                    void worker.terminate();
                    reject(new Error(m.message ?? 'device cluster index failed to build'));
                }
            };
            const onError = (err: Error) => {
                worker.off('message', onMessage);
                reject(err);
            };
            worker.once('message', onMessage);
            worker.once('error', onError);
            worker.postMessage(
                { type: 'load', lng, lat, radius: CLUSTER_RADIUS, extent: CLUSTER_EXTENT, maxZoom: CLUSTER_MAX_ZOOM },
                [lng.buffer as ArrayBuffer, lat.buffer as ArrayBuffer],
            );
        });
    }

    query(zoom: number, bbox: Bbox, limit: number): Promise<WorkerAnswer> {
        const id = ++this.seq;
        return new Promise((resolve, reject) => {
            this.waiting.set(id, { resolve, reject });
            this.worker.postMessage({ type: 'query', id, zoom, bbox, limit });
        });
    }

    terminate() {
        this.failAll(new Error('device cluster index replaced'));
        void this.worker.terminate();
    }

    private failAll(err: Error) {
        for (const entry of this.waiting.values()) entry.reject(err);
        this.waiting.clear();
    }
}

interface Snapshot {
    version: string;
    generation: number;
    ids: Float64Array;
    productIds: Float64Array;
    status: Uint8Array;
    worker: ClusterWorker;
}

export interface DeviceClusterIndexOptions {
    /** How often a request may look at device_map_version for changes (ms). */
    checkEveryMs?: number;
    /** Rows read per statement while building: keeps each pause of the event loop short. */
    chunkRows?: number;
    now?: () => number;
}

/**
 * The located devices clustered for every zoom (supercluster), answering what a zoom and bounding box show. The
 * index lives in a worker thread. When devices are added, removed, moved, renamed or change status (the
 * device_map_version sequence moves), a new index is built off the request path, in chunks on the main thread
 * and the clustering in a fresh worker, while the previous one keeps answering; the answer says `rebuilding` then.
 * Only the very first request waits for a build.
 */
export class DeviceClusterIndex {
    private current?: Snapshot;
    private building?: Promise<Snapshot>;
    private lastCheck = 0;
    private lastBuildMs = 0;
    private generation = 0;
    private readonly checkEveryMs: number;
    private readonly chunkRows: number;
    private readonly now: () => number;

    constructor(
        private readonly db: Db,
        opts: DeviceClusterIndexOptions = {},
    ) {
        this.checkEveryMs = opts.checkEveryMs ?? 1000;
        this.chunkRows = opts.chunkRows ?? 20_000;
        this.now = opts.now ?? (() => Date.now());
    }

    /** The index generation answers are built from (answer caches key on it). */
    async snapshot(): Promise<{ generation: number; rebuilding: boolean; total: number }> {
        const current = this.current ?? (await this.rebuild());
        this.watch();
        return { generation: current.generation, rebuilding: this.building !== undefined, total: current.ids.length };
    }

    async query(zoom: number, bbox: Bbox): Promise<ClusterAnswer> {
        const current = this.current ?? (await this.rebuild());
        this.watch();
        const z = Math.max(0, Math.min(Math.floor(zoom), CLUSTER_MAX_ZOOM + 1));
        const found = await current.worker.query(z, bbox, MAX_DEVICES_PER_ANSWER);
        const clusters: MapCluster[] = [];
        for (let i = 0; i < found.clusters.length; i += 5) {
            const [longitude, latitude, count, expansionZoom, clusterId] = found.clusters.slice(i, i + 5);
            clusters.push({ clusterId, longitude, latitude, count, expansionZoom });
        }
        const picked: Array<{ index: number; longitude: number; latitude: number }> = [];
        for (let i = 0; i < found.points.length; i += 3) {
            picked.push({ index: found.points[i], longitude: found.points[i + 1], latitude: found.points[i + 2] });
        }
        // Names are read now (a few hundred by primary key): the index carries only positions, ids and status.
        const ids = picked.map((p) => current.ids[p.index]);
        const names = new Map<number, string>();
        for (let i = 0; i < ids.length; i += 1000) {
            const rows = await this.db
                .select({ id: devices.id, deviceName: devices.deviceName })
                .from(devices)
                .where(inArray(devices.id, ids.slice(i, i + 1000)));
            for (const r of rows) names.set(r.id, r.deviceName);
        }
        const list: MapDevice[] = [];
        for (const p of picked) {
            const deviceId = current.ids[p.index];
            const deviceName = names.get(deviceId);
            // Deleted since the index was built.
            if (deviceName === undefined) continue;
            list.push({
                deviceId,
                productId: current.productIds[p.index],
                deviceName,
                longitude: p.longitude,
                latitude: p.latitude,
                status: STATUSES[current.status[p.index]] ?? 'OFFLINE',
            });
        }
        return {
            total: current.ids.length,
            zoom: z,
            clusters,
            devices: list,
            truncated: found.truncated,
            rebuilding: this.building !== undefined,
        };
    }

    /** Until the index reflects every change made so far (tests, and the first answer after start). */
    async settle(): Promise<void> {
        for (;;) {
            if (this.building) await this.building.catch(() => undefined);
            const version = await deviceMapVersion(this.db);
            if (this.current?.version === version) return;
            await this.rebuild();
        }
    }

    /** At most every checkEveryMs, in the background: a moved version starts a new build. */
    private watch() {
        const now = this.now();
        // A rebuild reads every located device: after one that took T ms, the next waits 4 T, so that under a steady
        // stream of device changes at most a fifth of the database's time goes to the map.
        const pause = Math.max(this.checkEveryMs, this.lastBuildMs * 4);
        if (this.building || now - this.lastCheck < pause) return;
        this.lastCheck = now;
        void deviceMapVersion(this.db)
            .then((version) => {
                if (version !== this.current?.version && !this.building) return this.rebuild();
            })
            .catch((err) => console.error('设备地图索引更新失败 / device map index refresh failed:', err));
    }

    private rebuild(): Promise<Snapshot> {
        if (this.building) return this.building;
        const building = this.build().finally(() => {
            if (this.building === building) this.building = undefined;
        });
        this.building = building;
        return building;
    }

    private async build(): Promise<Snapshot> {
        const started = this.now();
        // Read before the rows: a change during the read moves it again, and the next check rebuilds.
        const version = await deviceMapVersion(this.db);
        let ids = new Float64Array(0);
        let productIds = new Float64Array(0);
        let lng = new Float64Array(0);
        let lat = new Float64Array(0);
        let status = new Uint8Array(0);
        let n = 0;
        const grow = (need: number) => {
            if (need <= ids.length) return;
            const size = Math.max(need, ids.length * 2, 1024);
            const f64 = (a: Float64Array) => {
                const b = new Float64Array(size);
                b.set(a.subarray(0, n));
                return b;
            };
            [ids, productIds, lng, lat] = [f64(ids), f64(productIds), f64(lng), f64(lat)];
            const s = new Uint8Array(size);
            s.set(status.subarray(0, n));
            status = s;
        };
        let after = 0;
        for (;;) {
            const rows = await this.db
                .select({
                    id: devices.id,
                    productId: devices.productId,
                    longitude: devices.longitude,
                    latitude: devices.latitude,
                    status: devices.status,
                })
                .from(devices)
                .where(and(gt(devices.id, after), isNotNull(devices.longitude), isNotNull(devices.latitude)))
                .orderBy(asc(devices.id))
                .limit(this.chunkRows);
            grow(n + rows.length);
            for (const r of rows) {
                ids[n] = r.id;
                productIds[n] = r.productId;
                lng[n] = Number(r.longitude);
                lat[n] = Number(r.latitude);
                status[n] = Math.max(0, STATUSES.indexOf(r.status as (typeof STATUSES)[number]));
                n++;
            }
            if (rows.length < this.chunkRows) break;
            after = rows[rows.length - 1].id;
            // Let waiting requests through between chunks.
            await new Promise((resolve) => setImmediate(resolve));
        }
        const worker = await ClusterWorker.start(lng.slice(0, n), lat.slice(0, n));
        const snapshot: Snapshot = {
            version,
            generation: ++this.generation,
            ids: ids.slice(0, n),
            productIds: productIds.slice(0, n),
            status: status.slice(0, n),
            worker,
        };
        const previous = this.current;
        this.current = snapshot;
        this.lastBuildMs = this.now() - started;
        this.lastCheck = this.now();
        // Give queries already sent to the old worker time to come back.
        if (previous) setTimeout(() => previous.worker.terminate(), 5000).unref();
        return snapshot;
    }
}

const indexes = new WeakMap<Db, DeviceClusterIndex>();

/** The one index of a database in this process (the map routes and the start-up warm-up share it). */
export function deviceClusterIndex(db: Db): DeviceClusterIndex {
    let index = indexes.get(db);
    if (!index) {
        index = new DeviceClusterIndex(db);
        indexes.set(db, index);
    }
    return index;
}
