// `npm start`: build the console when dist/ is missing or older than its sources, build the platform server when
// dist-server/ is (scripts/server-build.mjs), then run it (it also serves dist/). Signals are forwarded so Ctrl+C and
// `kill` stop it cleanly.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServerBuild } from './server-build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'index.html');
const SOURCES = ['src', 'resources', 'dataProvider', 'schemas', 'index.html', 'vite.config.ts'];

/** Newest modification time under a file or directory (0 when it does not exist). */
function newest(target) {
    if (!existsSync(target)) return 0;
    const stat = statSync(target);
    if (!stat.isDirectory()) return stat.mtimeMs;
    let max = stat.mtimeMs;
    for (const entry of readdirSync(target)) {
        if (entry === 'node_modules' || entry.startsWith('.')) continue;
        max = Math.max(max, newest(path.join(target, entry)));
    }
    return max;
}

function needsBuild() {
    if (!existsSync(built)) return 'dist/index.html 不存在';
    const builtAt = statSync(built).mtimeMs;
    const stale = SOURCES.find((s) => newest(path.join(root, s)) > builtAt);
    return stale ? `${stale} 比 dist/ 新` : undefined;
}

const reason = needsBuild();
if (reason) {
    console.log(`构建控制台（${reason}）: npx vite build`);
    const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    // React's production build whatever the caller's NODE_ENV: vite takes a set NODE_ENV as the bundle's, and a start
    // from a test runner (NODE_ENV=test) shipped React's development build, several times slower to render.
    const env = { ...process.env, NODE_ENV: 'production' };
    const result = existsSync(vite)
        ? spawnSync(process.execPath, [vite, 'build'], { cwd: root, stdio: 'inherit', env })
        : spawnSync('npx', ['vite', 'build'], {
              cwd: root,
              stdio: 'inherit',
              env,
              shell: process.platform === 'win32',
          });
    if (result.status !== 0) {
        console.error(
            existsSync(built)
                ? '控制台构建失败，继续使用上一次的构建结果启动。/ Build failed; starting with the previous build.'
                : '控制台构建失败，平台接口照常启动，页面会提示先构建。/ Build failed; the API starts, the page asks for a build.',
        );
    }
}

// The compiled server, or the sources through tsx when it could not be built.
const compiled = await ensureServerBuild(root);
// `--build-only`: both built, nothing started (npm test builds them once before its e2e shards start their servers).
if (process.argv.includes('--build-only')) process.exit(reason && !existsSync(built) ? 1 : 0);
const child = spawn(
    process.execPath,
    compiled ? [compiled] : ['--import', 'tsx', path.join(root, 'server', 'index.ts')],
    {
        cwd: root,
        stdio: 'inherit',
        env: process.env,
    },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
        if (child.exitCode === null) child.kill(signal);
    });
}
child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 1 : 0));
});
