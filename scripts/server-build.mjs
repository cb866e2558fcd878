// The compiled platform server `npm start` runs: server/index.ts and everything it imports, bundled by esbuild into
// dist-server/index.mjs. A start then loads one file instead of compiling several hundred TypeScript modules with tsx
// and resolving each package's files (about a second of a cold start). Rebuilt when any of its inputs (recorded from
// esbuild's metafile) or the installed packages changed. PGlite stays outside the bundle: it loads its WebAssembly
// and data files from beside its own module.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const EXTERNAL = ['@electric-sql/pglite', 'pg-native'];

/** esbuild's options for one Node.js program bundled as the server is (the benches bundle their harnesses alike). */
export function bundleOptions(entry, outfile) {
    return {
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        external: EXTERNAL,
        // CommonJS packages inside an ES module bundle still call require().
        banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        },
        metafile: true,
        logLevel: 'warning',
    };
}

export function serverBuildPaths(root) {
    const dir = path.join(root, 'dist-server');
    return { dir, bundle: path.join(dir, 'index.mjs'), inputs: path.join(dir, 'inputs.json') };
}

/** Why the bundle must be built again, or undefined when it is current. */
function staleReason(root, { bundle, inputs }) {
    if (!existsSync(bundle) || !existsSync(inputs)) return 'dist-server/index.mjs 不存在';
    const builtAt = statSync(bundle).mtimeMs;
    const files = [...JSON.parse(readFileSync(inputs, 'utf8')), 'package-lock.json'];
    const changed = files.find(
        (f) => !existsSync(path.join(root, f)) || statSync(path.join(root, f)).mtimeMs > builtAt,
    );
    return changed ? `${changed} 比 dist-server/ 新` : undefined;
}

/**
 * Builds dist-server/index.mjs when it is missing or stale; answers the file to run, or undefined when esbuild is not
 * available or the build failed (the caller runs the sources with tsx instead).
 */
export async function ensureServerBuild(root) {
    const paths = serverBuildPaths(root);
    const reason = staleReason(root, paths);
    if (!reason) return paths.bundle;
    let esbuild;
    try {
        esbuild = await import('esbuild');
    } catch {
        return undefined;
    }
    const started = performance.now();
    try {
        // The modules the server imports once it is listening (import('./app'), the broker, ...) are chunks of their
        // own: a start parses the 0.9 MB entry, not 5 MB, before it opens the database, and the rest while the
        // database starts in its worker. The previous build's chunks go first.
        rmSync(path.join(paths.dir, 'chunks'), { recursive: true, force: true });
        mkdirSync(paths.dir, { recursive: true });
        const options = bundleOptions(path.join(root, 'server', 'index.ts'), paths.bundle);
        delete options.outfile;
        const result = await esbuild.build({
            ...options,
            outdir: paths.dir,
            splitting: true,
            entryNames: '[name]',
            chunkNames: 'chunks/[name]-[hash]',
            outExtension: { '.js': '.mjs' },
        });
        const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules'));
        writeFileSync(paths.inputs, JSON.stringify(inputs));
        console.log(`构建平台服务（${reason}）: ${Math.round(performance.now() - started)} ms`);
        return paths.bundle;
    } catch (err) {
        console.error(
            `平台服务构建失败，改用 tsx 运行源码 / server build failed, running the sources with tsx: ${err.message}`,
        );
        return undefined;
    } finally {
        // esbuild's service process would otherwise live beside the server for as long as `npm start` runs.
        await esbuild.stop();
    }
}
