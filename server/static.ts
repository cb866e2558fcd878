import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, MiddlewareHandler } from 'hono';
import { isProtectedPath } from './sso/auth';
import { escapeHtml, PRODUCT_NAME } from './sso/page';
import { shellStateScript, type ShellState } from './sso/shellState';

const notBuiltPage = (dir: string) => `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>${PRODUCT_NAME}</title></head>
<body style="font-family:sans-serif;max-width:640px;margin:80px auto;line-height:1.7;color:#333">
<h1 style="font-size:22px">控制台尚未构建</h1>
<p>在 <code>${escapeHtml(dir)}</code> 中没有找到 <code>index.html</code>。请先运行 <code>npm run build</code>（或直接用 <code>npm start</code>，它会在需要时自动构建），然后刷新本页。</p>
<p>平台接口（/api、/ms3 ...）不受影响，可以照常调用。</p>
</body></html>`;

/**
 * The built console on the same port as the API: files from publicDir, and index.html for every other
 * GET that is not an API or sign-on path, so deep links such as /productDetail/view?productId=1 load the app.
 * With `stateOf`, index.html carries the visitor's session state for the first screen (server/sso/shellState.ts);
 * such a page is the visitor's own: never kept by a shared cache.
 */
export function consoleFiles(publicDir: string, stateOf?: (c: Context) => Promise<ShellState>): MiddlewareHandler {
    const indexFile = path.join(publicDir, 'index.html');
    // Built lazily: serveStatic complains at creation when the directory does not exist yet (no build).
    let files: MiddlewareHandler | undefined;
    const index = serveStatic({ path: indexFile });
    /** index.html's text, read again when a rebuild changes it. */
    let shell: { mtimeMs: number; head: string; tail: string } | undefined;

    function shellParts() {
        const mtimeMs = statSync(indexFile).mtimeMs;
        if (shell?.mtimeMs !== mtimeMs) {
            const html = readFileSync(indexFile, 'utf8');
            const at = html.indexOf('</head>');
            shell =
                at < 0 ? { mtimeMs, head: html, tail: '' } : { mtimeMs, head: html.slice(0, at), tail: html.slice(at) };
        }
        return shell;
    }

    return async (c, next) => {
        const method = c.req.method;
        if ((method !== 'GET' && method !== 'HEAD') || isProtectedPath(c.req.path) || c.req.path.startsWith('/sso/')) {
            return next();
        }
        if (!existsSync(indexFile)) return c.html(notBuiltPage(publicDir), 200);
        files ??= serveStatic({ root: publicDir });
        // Vite names files under assets/ by content hash, so they never change; everything else may.
        const hashed = c.req.path.startsWith('/assets/');
        c.header('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        // index.html itself, asked by its name or by a console route: with the state, below.
        const asksIndex = c.req.path === '/index.html' || c.req.path.endsWith('/');
        const served = stateOf && asksIndex ? undefined : await files(c, async () => {});
        if (served) return served;
        // A missing build asset (an old hash after a rebuild) is a 404, not the app shell.
        if (hashed) {
            c.header('Cache-Control', undefined);
            return next();
        }
        if (!stateOf) return (await index(c, async () => {})) ?? next();
        const { head, tail } = shellParts();
        c.header('Cache-Control', 'private, no-cache');
        c.header('Vary', 'Cookie');
        return c.html(`${head}${shellStateScript(await stateOf(c))}${tail}`);
    };
}
