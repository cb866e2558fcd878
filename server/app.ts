import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMaintenance } from './db/maintenance';
import type { AppDeps, AppEnv, Services } from './deps';
import { fail } from './http/envelope';
import { ApiError } from './http/errors';
import { deviceRoutes } from './routes/device';
import { functionRoutes } from './routes/function';
import { menuRoutes } from './routes/menu';
import { createGeoRouter } from './geo/router';
import { ms4Routes } from './routes/ms4';
import { productRoutes } from './routes/product';
import { productLogRoutes } from './routes/productLog';
import { projectRoutes } from './routes/project';
import { ssoRoutes } from './routes/sso';
import { topicRoutes } from './routes/topic';
import { isProtectedPath, PROTECTED_PREFIXES, requireSession } from './sso/auth';
import { ssoPages } from './sso/routes';
import { consoleFiles } from './static';

const DEVICE_IMPORT_PATH = '/api/device/import';

/**
 * The reference platform: one router per API family under its prefix, the sign-on pages, and the built
 * console, all on one Hono app (so `app.fetch` also serves in-process tests through msw).
 */
export function createApp(deps: AppDeps) {
    const logError = deps.logError ?? ((message, err) => console.error(message, err));
    const services: Services = {
        db: deps.db,
        config: deps.config,
        now: deps.now ?? (() => new Date()),
        maintenance: deps.maintenance ?? createMaintenance(deps.db, { logError }),
    };
    const app = new Hono<AppEnv>();

    app.onError((err, c) => {
        if (err instanceof ApiError) return fail(c, err.status, err.message);
        logError(`[${c.req.method} ${c.req.path}] 未处理的错误 / unhandled error:`, err);
        if (isProtectedPath(c.req.path)) return fail(c, 500, '系统错误');
        return c.text('系统错误', 500);
    });

    const generalLimit = bodyLimit({
        maxSize: 10 * 1024 * 1024,
        onError: (c) => fail(c, 413, '请求体过大（上限 10MB）'),
    });
    // The device import takes files up to IMPORT_MAX_BYTES and sets its own limit (routes/deviceImport.ts).
    app.use('*', (c, next) => (c.req.path === DEVICE_IMPORT_PATH ? next() : generalLimit(c, next)));
    app.route('/sso', ssoPages(services, deps));

    for (const prefix of PROTECTED_PREFIXES) {
        app.use(prefix, requireSession(services));
        app.use(`${prefix}/*`, requireSession(services));
    }

    app.route('/api/sso', ssoRoutes(services));
    app.route('/api/menu', menuRoutes());
    app.route('/api/project', projectRoutes(services));
    app.route('/api/product', productRoutes(services));
    app.route('/api/function', functionRoutes(services));
    app.route('/api/topic', topicRoutes(services));
    app.route('/api/device', deviceRoutes(services));
    app.route('/api/geo', createGeoRouter(services));
    app.route('/ms3/productLog', productLogRoutes(services));
    app.route('/ms4', ms4Routes(services));

    app.use('*', consoleFiles(deps.config.publicDir));

    app.notFound((c) => {
        if (isProtectedPath(c.req.path)) return fail(c, 404, '接口不存在');
        return c.text('Not Found', 404);
    });

    return app;
}

export type App = ReturnType<typeof createApp>;
