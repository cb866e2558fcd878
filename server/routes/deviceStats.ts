import { Hono } from 'hono';
import type { AppEnv, Services } from '../deps';
import { devicesByCategory, locatedDevicesJson, type Bbox } from '../domain/dashboard';
import { CLUSTER_MAX_ZOOM, deviceClusterIndex } from '../domain/deviceClusters';
import { countLocated, gridClusters } from '../domain/gridClusters';
import { devices } from '../db/schema';
import { currentScope, scopeByProjectId } from '../rights/scope';
import { DeviceMapCache } from '../domain/deviceMapCache';
import { CompressedAnswer, jsonAnswer } from '../http/compress';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';

const BBOX_MESSAGE = 'bbox 格式应为 西经,南纬,东经,北纬（如 73,18,135,54）';

/** `w,s,e,n` in degrees, west ≤ east and south ≤ north; absent or empty means the whole map. */
export function parseBbox(raw: string | undefined): Bbox | undefined {
    const value = raw?.trim();
    if (!value) return undefined;
    const parts = value.split(',').map((p) => p.trim());
    if (parts.length !== 4 || parts.some((p) => !/^-?\d+(\.\d+)?$/.test(p))) throw badRequest(BBOX_MESSAGE);
    const [w, s, e, n] = parts.map(Number);
    const lngOk = (v: number) => v >= -180 && v <= 180;
    const latOk = (v: number) => v >= -90 && v <= 90;
    if (!lngOk(w) || !lngOk(e) || !latOk(s) || !latOk(n) || w > e || s > n) throw badRequest(BBOX_MESSAGE);
    return [w, s, e, n];
}

const ZOOM_MESSAGE = `zoom 应为 0 到 ${CLUSTER_MAX_ZOOM + 8} 之间的数字`;

function parseZoom(raw: string | undefined): number {
    const value = raw?.trim();
    if (!value || !/^\d+(\.\d+)?$/.test(value)) throw badRequest(ZOOM_MESSAGE);
    const zoom = Number(value);
    if (zoom > CLUSTER_MAX_ZOOM + 8) throw badRequest(ZOOM_MESSAGE);
    return zoom;
}

function parseLimit(raw: string | undefined, name = 'limit'): number | undefined {
    const value = raw?.trim();
    if (!value) return undefined;
    if (!/^\d{1,9}$/.test(value) || Number(value) === 0) throw badRequest(`${name} 应为正整数`);
    return Number(value);
}

const truncatedList = (total: number) => `${ENVELOPE_HEAD}{"list":[],"total":${total},"truncated":true}}`;

const ENVELOPE_HEAD = '{"code":0,"msg":"success","data":';

/** A small LRU of cluster answers, keyed by index generation, zoom and bounding box. */
class AnswerCache {
    private readonly entries = new Map<string, CompressedAnswer>();

    constructor(private readonly size = 256) {}

    get(key: string): CompressedAnswer | undefined {
        const hit = this.entries.get(key);
        if (hit) {
            this.entries.delete(key);
            this.entries.set(key, hit);
        }
        return hit;
    }

    set(key: string, answer: CompressedAnswer) {
        this.entries.set(key, answer);
        if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
    }
}

/**
 * The located devices as one cluster answer with `whole: true` (no clusters, every device in `devices`, whatever the
 * bbox): for a map that clusters them itself. From locatedDevicesJson's `{"list":[...],"total":n}`.
 */
const wholeAnswer = (zoom: number, located: string) =>
    `${ENVELOPE_HEAD}{"whole":true,"zoom":${zoom},"clusters":[],"truncated":false,"rebuilding":false,` +
    `"devices":${located.slice('{"list":'.length)}}`;

/** /api/device: devices per category and the device map (docs/platform-api.md "Dashboard"). */
export function deviceStatsRoutes({ db }: Services) {
    const app = new Hono<AppEnv>();
    const mapCache = new DeviceMapCache();
    const clusters = deviceClusterIndex(db);
    const clusterAnswers = new AnswerCache();
    /** Whole answers (the platform's located devices in cluster shape), one per zoom asked. */
    const wholeCaches = new Map<number, DeviceMapCache>();

    app.get('/getCntGroupByCate', async (c) => ok(c, { records: await devicesByCategory(db) }));

    // The database writes the list as JSON text; it goes into the envelope as is. The whole map (no bbox) is cached
    // until a device changes (domain/deviceMapCache.ts).
    app.get('/queryLonLatList', async (c) => {
        const bbox = parseBbox(c.req.query('bbox'));
        const limit = parseLimit(c.req.query('limit'));
        // A map of more devices than the client wants to cluster itself gets only the count: it asks for clusters.
        if (limit !== undefined && !bbox) {
            const { total } = await clusters.snapshot();
            if (total > limit) return jsonAnswer(c, new CompressedAnswer(truncatedList(total)));
        }
        // A user who is not an administrator gets their projects' devices, never the shared cache.
        if (currentScope())
            return jsonAnswer(c, new CompressedAnswer(`${ENVELOPE_HEAD}${await locatedDevicesJson(db, bbox)}}`));
        const answer = bbox
            ? new CompressedAnswer(`${ENVELOPE_HEAD}${await locatedDevicesJson(db, bbox)}}`)
            : await mapCache.answer(db, async () => `${ENVELOPE_HEAD}${await locatedDevicesJson(db)}}`);
        return jsonAnswer(c, answer);
    });

    // What the map shows at a zoom within a bounding box: clusters of 80 px, devices one by one where few remain
    // (domain/deviceClusters.ts). Answers are cached per index generation, so a map panned back and forth, or opened
    // by many operators, costs one worker query and one gzip per view.
    // whole=N: when at most N devices are located, every one of them comes at once (whole: true) and the client
    // clusters them itself, so its first call both decides the way and brings the first view.
    app.get('/queryLonLatClusters', async (c) => {
        const zoom = parseZoom(c.req.query('zoom'));
        const bbox = parseBbox(c.req.query('bbox')) ?? [-180, -90, 180, 90];
        const whole = parseLimit(c.req.query('whole'), 'whole');
        // A user who is not an administrator: their projects' devices, clustered by the database for this view
        // (domain/gridClusters.ts), never the platform's shared index.
        const scope = scopeByProjectId(devices.projectId);
        if (scope) {
            if (whole !== undefined && (await countLocated(db, scope)) <= whole) {
                const z = Math.min(Math.floor(zoom), CLUSTER_MAX_ZOOM + 1);
                return jsonAnswer(c, new CompressedAnswer(wholeAnswer(z, await locatedDevicesJson(db))));
            }
            const answer = await gridClusters(db, zoom, bbox, scope);
            return jsonAnswer(c, new CompressedAnswer(`${ENVELOPE_HEAD}${JSON.stringify(answer)}}`));
        }
        if (whole !== undefined && (await clusters.snapshot()).total <= whole) {
            const z = Math.min(Math.floor(zoom), CLUSTER_MAX_ZOOM + 1);
            let cache = wholeCaches.get(z);
            if (!cache) wholeCaches.set(z, (cache = new DeviceMapCache()));
            return jsonAnswer(c, await cache.answer(db, async () => wholeAnswer(z, await locatedDevicesJson(db))));
        }
        const { generation, rebuilding } = await clusters.snapshot();
        const key = `${generation}|${rebuilding}|${Math.floor(zoom)}|${bbox.join(',')}`;
        let answer = clusterAnswers.get(key);
        if (!answer) {
            answer = new CompressedAnswer(`${ENVELOPE_HEAD}${JSON.stringify(await clusters.query(zoom, bbox))}}`);
            clusterAnswers.set(key, answer);
        }
        return jsonAnswer(c, answer);
    });

    return app;
}
