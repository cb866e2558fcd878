// `npm install` (postinstall): builds the migrated, empty embedded-database template (server/db/template.ts), so the
// first `npm start` on an empty DATA_DIR loads it instead of running initdb and every migration. Never fails the
// install: without the template the server runs initdb as before.
import { buildTemplate, templateFile } from '../server/db/template';

const started = performance.now();
try {
    await buildTemplate();
    console.log(
        `内嵌数据库模板已生成 / embedded database template built: ${templateFile()} (${Math.round(performance.now() - started)} ms)`,
    );
} catch (err) {
    console.warn(`内嵌数据库模板未生成（首次启动时照常初始化）/ template not built: ${(err as Error).message}`);
}
