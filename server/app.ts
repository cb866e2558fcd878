import { Hono } from 'hono';
import { createMaintenance } from './db/maintenance';
import { createAccessHub } from './mqtt/access';
import { deviceAccessRoutes } from './routes/deviceAccess';
import { deviceShadowRoutes } from './routes/deviceShadow';
import type { AppDeps, AppEnv, Services } from './deps';
import { fail } from './http/envelope';
import { answerCache } from './http/answerCache';
import { compressAnswers } from './http/compress';
import { OWN_LIMIT_PATHS } from './http/input';
import { ApiError } from './http/errors';
import { isDataException, limitBody, refuseForeignWrites, refuseNulInQuery, securityHeaders } from './http/guard';
import { deviceRoutes } from './routes/device';
import { functionRoutes } from './routes/function';
import { menuRoutes } from './routes/menu';
import { messageLogRoutes } from './routes/messageLog';
import { createGeoRouter } from './geo/router';
import { ms4Routes } from './routes/ms4';
import { dataScriptRoutes } from './routes/dataScript';
import { productRoutes } from './routes/product';
import { productLogRoutes } from './routes/productLog';
import { projectRoutes } from './routes/project';
import { ssoRoutes } from './routes/sso';
import { peopleRoutes } from './routes/people';
import { requireRights } from './rights/middleware';
import { loadRightTable } from './rights/table';
import { topicRoutes } from './routes/topic';
import { tagRoutes } from './routes/tag';
import { deviceFileRoutes } from './routes/deviceFiles';
import { subDeviceRoutes } from './routes/subDevice';
import { telemetryRoutes } from './routes/telemetry';
import { listPropertyRoutes } from './routes/listProperty';
import { projectUserRoutes } from './routes/projectUser';
import { userRoutes } from './routes/user';
import { overviewRoutes } from './routes/overview';
import { platformRoutes } from './routes/platform';
import { appRoutes } from './routes/app';
import { reportRoutes } from './routes/report';
import { dashboardRoutes } from './routes/dashboard';
import { eventRoutes } from './routes/event';
import { deviceStatsRoutes } from './routes/deviceStats';
import { groupRoutes } from './routes/group';
import { groupDeviceRoutes } from './routes/groups';
import { deviceCandidateRoutes } from './routes/deviceCandidates';
import { simulationRoutes } from './routes/simulation';
import { createSimulator } from './simulation/simulator';
import { createRuleEngine } from './rules/engine';
import { ms6RuleRoutes, ruleRoutes } from './routes/rule';
import { alertLogRoutes, alertRuleRoutes } from './routes/alert';
import { videoDeviceRoutes } from './routes/videoDevice';
import { accessKeyRoutes, consumerGroupRoutes, subscriptionRoutes } from './routes/subscription';
import { edgeRoutes } from './routes/edge';
import { createVideoRelay } from './video/relay';
import { setCameraOnline } from './domain/videoDevices';
import { isProtectedPath, PROTECTED_PREFIXES, requireSession } from './sso/auth';
import { ssoPages } from './sso/routes';
import { sessionProbe } from './sso/sessionProbe';
import { shellState } from './sso/shellState';
import { consoleFiles } from './static';
import { healthRoutes } from './cluster/health';
import { DEMO_WEBHOOK_PATH, demoWebhookRoute } from './seed/webhook';
import { createOtaService } from './ota/service';
import { otaDownloadRoute, otaRoutes } from './routes/ota';
import { createRemoteConfigService } from './remoteConfig/service';
import { configDownloadRoute, remoteConfigRoutes } from './routes/remoteConfig';
import { createForwardService } from './forward/service';
import { platformSecretBox } from './forward/secrets';
import { linkKey } from './http/signedLinks';
import { forwardRoutes } from './routes/forward';
import { registerRoutes } from './routes/register';
import { registerLimiter } from './domain/dynamicRegister';

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
        access: deps.access ?? createAccessHub(),
        amqp: deps.amqp,
    };
    services.simulator = deps.simulator ?? createSimulator({ db: deps.db, access: services.access! });
    services.rules =
        deps.rules ??
        createRuleEngine({ db: deps.db, access: services.access!, timeZone: deps.config.timeZone, now: services.now });
    services.video = deps.video ?? createVideoRelay({ dir: deps.config.videoDir, ffmpegPath: deps.config.ffmpegPath });
    services.sip = deps.sip;
    services.ota =
        deps.ota ??
        createOtaService({ db: deps.db, access: services.access!, config: deps.config, now: services.now, logError });
    services.remoteConfig =
        deps.remoteConfig ??
        createRemoteConfigService({
            db: deps.db,
            access: services.access!,
            config: deps.config,
            now: services.now,
            logError,
        });
    services.forward =
        deps.forward ??
        createForwardService({
            db: deps.db,
            timeZone: deps.config.timeZone,
            box: platformSecretBox(linkKey(deps.db), deps.config.forwardSecretKey),
            access: services.access,
            log: (line) => logError(line, ''),
        });
    // A rule can trigger on an upgrade failing for good (docs/rules.md, trigger otaFailed).
    const rules = services.rules;
    services.ota.onFailed((failure) => rules.onOtaFailed(failure));
    services.video.onOnline((deviceId, online) => {
        setCameraOnline(deps.db, deviceId, online, services.now()).catch((err) =>
            logError('视频设备状态更新失败 / camera status update failed:', err),
        );
    });
    registerLimiter.perMinute = deps.config.dynamicRegisterPerMinute;
    const app = new Hono<AppEnv>();

    app.onError((err, c) => {
        if (err instanceof ApiError) return fail(c, err.status, err.message);
        if (isDataException(err)) return fail(c, 400, '参数超出范围或格式不正确，请检查后重试');
        logError(`[${c.req.method} ${c.req.path}] 未处理的错误 / unhandled error:`, err);
        if (isProtectedPath(c.req.path)) return fail(c, 500, '系统错误');
        return c.text('系统错误', 500);
    });

    const generalLimit = limitBody({
        maxSize: 10 * 1024 * 1024,
        onError: (c) => fail(c, 413, '请求体过大（上限 10MB）'),
    });
    // The device import and device file upload take larger files and set their own limits (their routes).
    app.use('*', securityHeaders);
    app.use('*', refuseForeignWrites);
    app.use('*', refuseNulInQuery);
    app.use('*', (c, next) => (OWN_LIMIT_PATHS.has(c.req.path) ? next() : generalLimit(c, next)));
    // Liveness, readiness and /metrics: outside the console's sign-in (server/cluster/health.ts says why).
    app.route('/', healthRoutes());
    app.get('/sso/session', sessionProbe(services));
    // The live demo's webhook channel is addressed here (server/seed/webhook.ts): no session, as any webhook receiver.
    app.route(DEMO_WEBHOOK_PATH, demoWebhookRoute());
    app.route('/sso', ssoPages(services, deps));
    // JSON and CSV answers are gzipped for clients that accept it (the device map's 100,000 points: 11 MB → about 2 MB).
    app.use('/api/*', compressAnswers());

    // OTA and configuration downloads carry their own signature (devices do not sign in): before the session check, on purpose.
    app.route('/api/ota/download', otaDownloadRoute(services, services.ota.signer));
    app.route('/api/config/download', configDownloadRoute(services, services.remoteConfig.signer));
    // Rights (openapi.yaml x-right, docs/roles.md) and the project scope of the signed-in user, after the session.
    const rights = requireRights(deps.rightTable ?? loadRightTable(), services.db);
    for (const prefix of PROTECTED_PREFIXES) {
        app.use(prefix, requireSession(services), rights);
        app.use(`${prefix}/*`, requireSession(services), rights);
    }
    // The busiest reads, answered again from memory while no write could have changed them (PGlite only).
    app.use('/api/*', answerCache(services.db));

    app.route('/api/sso', ssoRoutes(services));
    app.route('/api', peopleRoutes(services, deps));
    app.route('/api/menu', menuRoutes());
    app.route('/api/project', projectRoutes(services));
    app.route('/api/project-user', projectUserRoutes(services));
    app.route('/api/user', userRoutes(services));
    app.route('/api/overview', overviewRoutes(services));
    app.route('/api/dashboard', dashboardRoutes(services));
    app.route('/api/event', eventRoutes(services));
    app.route('/api/group', groupRoutes(services));
    app.route('/api/groups', groupDeviceRoutes(services));
    app.route('/api/tag', tagRoutes(services));
    app.route('/api/product/config', remoteConfigRoutes(services, services.remoteConfig));
    app.route('/api/forward', forwardRoutes(services, services.forward));
    app.route('/api/product/script', dataScriptRoutes(services));
    app.route('/api/product', productRoutes(services));
    app.route('/api/function', listPropertyRoutes(services));
    app.route('/api/function', functionRoutes(services));
    app.route('/api/topic', topicRoutes(services));
    app.route('/api/device/file', deviceFileRoutes(services));
    app.route('/', deviceShadowRoutes(services));
    app.route('/api/device/subDevice', subDeviceRoutes(services));
    app.route('/api/device', telemetryRoutes(services));
    app.route('/api/device', deviceStatsRoutes(services));
    app.route('/api/device', deviceCandidateRoutes(services));
    app.route('/api/device', deviceRoutes(services));
    app.route('/api/video-device', videoDeviceRoutes(services));
    app.route('/api/edge', edgeRoutes(services));
    app.route('/api/geo', createGeoRouter(services));
    app.route('/api/simulation', simulationRoutes(services));
    app.route('/api/log', messageLogRoutes(services));
    app.route('/api/subscription', subscriptionRoutes(services));
    app.route('/api/consumerGroup', consumerGroupRoutes(services));
    app.route('/api/accessKey', accessKeyRoutes(services));
    app.route('/api/rule', ruleRoutes(services));
    app.route('/api/alert-rule', alertRuleRoutes(services));
    app.route('/api/alert-log', alertLogRoutes(services));
    app.route('/ms6/rule', ms6RuleRoutes(services));
    app.route('/api/platform', platformRoutes(services));
    app.route('/api/ota', otaRoutes(services));
    app.route('/api/report', reportRoutes(services));
    app.route('/api/app', appRoutes(services));
    app.route('/ms3/productLog', productLogRoutes(services));
    app.route('/', deviceAccessRoutes(services));
    // Devices fetch their DeviceSecret here (一型一密) with no console session: the ProductSecret's signature is the proof.
    app.route('/', registerRoutes(services));
    app.route('/ms4', ms4Routes(services));

    app.use('*', consoleFiles(deps.config.publicDir, shellState(services)));

    app.notFound((c) => {
        if (isProtectedPath(c.req.path)) return fail(c, 404, '接口不存在');
        return c.text('Not Found', 404);
    });

    return app;
}

export type App = ReturnType<typeof createApp>;
