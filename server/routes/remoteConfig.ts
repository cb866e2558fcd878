import { Hono, type Context } from 'hono';
import { CONFIG_PUSH_STATES } from '../../schemas/remoteConfig';
import type { AppEnv, Services } from '../deps';
import { getProduct } from '../domain/products';
import { ok } from '../http/envelope';
import { badRequest } from '../http/errors';
import { paging, positiveInt, readBody } from '../http/input';
import { listPushes, pushDevices, pushSummary } from '../remoteConfig/push';
import type { RemoteConfigService } from '../remoteConfig/service';
import type { LinkSigner } from '../http/signedLinks';
import {
    currentVersion,
    listVersions,
    restoreVersion,
    saveVersion,
    versionByConfigId,
    versionOf,
    versionView,
} from '../remoteConfig/versions';

/**
 * /api/product/config (docs/platform-api.md "远程配置"): a product's configuration file, its versions, pushes and each
 * pushed device's state. Every call names its productId (so the rights middleware keeps a scoped user to their
 * products); the writes need product.edit (openapi.yaml x-right).
 */

type Ctx = Context<AppEnv>;

/** The product named by the query or body: 404 when it does not exist. */
async function productOf({ db, config }: Services, raw: unknown): Promise<number> {
    const productId = positiveInt(raw, '缺少产品ID');
    await getProduct(db, config.timeZone, productId);
    return productId;
}

async function current(s: Services, c: Ctx) {
    const productId = await productOf(s, c.req.query('productId'));
    const row = await currentVersion(s.db, productId);
    return ok(c, row ? versionView(row, s.config.timeZone, true) : null);
}

async function save(s: Services, c: Ctx) {
    const body = await readBody(c);
    const productId = await productOf(s, body.productId);
    return ok(c, versionView(await saveVersion(s.db, productId, body), s.config.timeZone, true));
}

async function versions(s: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const productId = await productOf(s, c.req.query('productId'));
    return ok(c, await listVersions(s.db, productId, size, offset, s.config.timeZone));
}

async function version(s: Services, c: Ctx) {
    const productId = await productOf(s, c.req.query('productId'));
    const versionId = positiveInt(c.req.query('versionId'), '缺少版本ID');
    return ok(c, versionView(await versionOf(s.db, productId, versionId), s.config.timeZone, true));
}

async function restore(s: Services, c: Ctx) {
    const body = await readBody(c);
    const productId = await productOf(s, body.productId);
    const versionId = positiveInt(body.versionId, '缺少版本ID');
    return ok(c, versionView(await restoreVersion(s.db, productId, versionId), s.config.timeZone, true));
}

function push(s: Services, service: RemoteConfigService) {
    return async (c: Ctx) => {
        const body = await readBody(c);
        const productId = await productOf(s, body.productId);
        return ok(c, await service.push(productId, body));
    };
}

async function pushes(s: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const productId = await productOf(s, c.req.query('productId'));
    return ok(c, await listPushes(s.db, productId, { size, offset }, s.config.timeZone, s.now()));
}

async function pushDetail(s: Services, c: Ctx) {
    const productId = await productOf(s, c.req.query('productId'));
    const pushId = positiveInt(c.req.query('pushId'), '缺少推送ID');
    const { waitOver: _over, ...push } = await pushSummary(s.db, productId, pushId, s.config.timeZone, s.now());
    return ok(c, push);
}

const STATES = new Set<string>(CONFIG_PUSH_STATES.map((x) => x.id));

async function pushDeviceList(s: Services, c: Ctx) {
    const { size, offset } = paging(c.req.query('pageNumber'), c.req.query('pageSize'));
    const productId = await productOf(s, c.req.query('productId'));
    const pushId = positiveInt(c.req.query('pushId'), '缺少推送ID');
    const state = c.req.query('state') || undefined;
    if (state && !STATES.has(state)) throw badRequest('状态只能是 pushing、succeeded、failed、offline 或 timeout');
    return ok(c, await pushDevices(s.db, { productId, pushId, state }, { size, offset }, s.config.timeZone, s.now()));
}

export function remoteConfigRoutes(services: Services, service: RemoteConfigService) {
    const app = new Hono<AppEnv>();
    const on = (handler: (s: Services, c: Ctx) => Promise<Response>) => (c: Ctx) => handler(services, c);
    app.get('/', on(current));
    app.post('/save', on(save));
    app.get('/versions', on(versions));
    app.get('/version', on(version));
    app.post('/restore', on(restore));
    app.post('/push', push(services, service));
    app.get('/pushes', on(pushes));
    app.get('/push', on(pushDetail));
    app.get('/push/devices', on(pushDeviceList));
    return app;
}

/**
 * GET /api/config/download: a configuration file for a device, which does not sign in: the signed URL it was told
 * (thing/config/get_reply, thing/config/push) is the proof; an expired or altered one is answered 403. The body is
 * exactly the bytes whose SHA-256 the device was told as `sign`.
 */
export function configDownloadRoute(services: Services, signer: LinkSigner) {
    const app = new Hono<AppEnv>();
    app.get('/', async (c) => {
        const configId = c.req.query('configId');
        const verdict = await signer.check(
            configId,
            c.req.query('expires'),
            c.req.query('signature'),
            services.now().getTime(),
        );
        if (verdict !== 'ok') {
            const msg = verdict === 'expired' ? '下载地址已过期，请让设备重新获取配置' : '下载地址签名无效';
            return c.json({ code: 403, msg }, 403);
        }
        const row = await versionByConfigId(services.db, configId!);
        if (!row) return c.json({ code: 404, msg: '配置文件不存在' }, 404);
        const bytes = Buffer.from(row.content, 'utf8');
        return c.body(new Uint8Array(bytes), 200, {
            'content-type': row.format === 'json' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
            'content-length': String(bytes.length),
            'content-disposition': `attachment; filename="config-v${row.version}.${row.format === 'json' ? 'json' : 'txt'}"`,
            'x-content-type-options': 'nosniff',
            // no-transform: the answer is not gzipped on the way, the device gets the very bytes `sign` is of.
            'cache-control': 'private, no-store, no-transform',
            etag: `"${row.sha256}"`,
        });
    });
    return app;
}
