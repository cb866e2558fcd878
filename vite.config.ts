import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';
// @ts-expect-error: a plain ES module (a .ts one would need an extensionless import, which Vite's coming config loader refuses).
import { SlowFirstSequencer } from './tests/sequencer.mjs';

const apiTarget = process.env.API_TARGET ?? 'http://127.0.0.1:8080';

/**
 * jsdom has no WebGL: in the resources project the map components' maplibre (src/components/map/maplibre.ts) is the
 * fake map of tests/fakes/maplibre.ts for every file, so no file's render can leave the real library in a worker's
 * module cache, which files share there (isolate: false), for a later file's map to throw on.
 */
function fakeMaplibre(): Plugin {
    const fake = fileURLToPath(new URL('./tests/fakes/maplibre.ts', import.meta.url));
    return {
        name: 'fake-maplibre',
        enforce: 'pre',
        resolveId(source, importer) {
            const mapModule = source === './maplibre' && importer?.includes('/src/components/map/');
            return mapModule || source.endsWith('/src/components/map/maplibre') ? fake : null;
        },
    };
}

export default defineConfig({
    plugins: [react()],
    server: {
        // `npm run dev` serves the console with hot reload and forwards every platform call to the server.
        proxy: Object.fromEntries(
            ['/api', '/ms2', '/ms3', '/ms4', '/ms6', '/ms7', '/sso', '/f'].map((p) => [p, apiTarget]),
        ),
    },
    build: {
        outDir: 'dist',
        chunkSizeWarningLimit: 1500,
    },
    test: {
        // vitest's default on these 2-core machines is one worker (availableParallelism - 1), which runs every file in
        // turn while most of them wait on a database, a socket or a timer: two overlap those waits.
        maxWorkers: 2,
        // Long files first and balanced e2e shards (tests/sequencer.ts).
        sequence: { sequencer: SlowFirstSequencer },
        projects: [
            {
                extends: true,
                test: {
                    name: 'unit',
                    environment: 'node',
                    include: ['tests/unit/**/*.test.ts'],
                    setupFiles: ['tests/cpuPerFile.ts'],
                },
            },
            {
                extends: true,
                plugins: [fakeMaplibre()],
                test: {
                    name: 'resources',
                    environment: 'jsdom',
                    include: ['tests/resources/**/*.test.{ts,tsx}'],
                    // The scaffolds npm test writes of every contract group are for tsc and eslint only; those of the
                    // contract fragment run here (scripts/scaffoldCheck.ts); the scaffolder tests' own are theirs.
                    exclude: ['tests/resources/scaffold-check/contract/**', 'tests/resources/scaffold-tmp/**'],
                    setupFiles: ['tests/cpuPerFile.ts', 'tests/resources/setup.ts'],
                    // One import of the console per worker rather than per file (quiet machine: 266 → 227 s). Each
                    // render makes its own providers (App's auth provider included); setup.ts clears local storage.
                    isolate: false,
                    globalSetup: ['tests/templateSetup.ts'],
                    // A few files fill long forms through jsdom (a minute on a loaded machine): time enough to finish.
                    testTimeout: 120_000,
                    hookTimeout: 60_000,
                },
            },
            {
                extends: true,
                test: {
                    name: 'server',
                    environment: 'node',
                    include: ['tests/server/**/*.test.ts'],
                    // SERVER_TESTS_EXCLUDE: more globs, space-separated (the CI's PostgreSQL pass leaves out the files
                    // that run the same on either database); vitest's --exclude does not reach a project's files.
                    exclude: [
                        'tests/server/fuzz*.test.ts',
                        ...(process.env.SERVER_TESTS_EXCLUDE?.split(/\s+/).filter(Boolean) ?? []),
                    ],
                    globalSetup: ['tests/templateSetup.ts', 'tests/serverBundleSetup.ts'],
                    setupFiles: ['tests/cpuPerFile.ts'],
                    // Each worker imports the server's modules once rather than once per file: the project took 568 s
                    // isolated and 202 s so (import 227 s of it against 12 s), same machine and load. The files share
                    // no module state they depend on: each makes its own server (tests/server/support.ts) and data.
                    isolate: false,
                    testTimeout: 30_000,
                    hookTimeout: 60_000,
                },
            },
            {
                extends: true,
                test: {
                    // The fuzzing files bound the memory a flood of bad input makes the platform hold (RSS and heap
                    // growth of the process): each in a worker of its own, so another file's garbage is not counted.
                    name: 'fuzz',
                    environment: 'node',
                    include: ['tests/server/fuzz*.test.ts'],
                    globalSetup: ['tests/templateSetup.ts'],
                    setupFiles: ['tests/cpuPerFile.ts'],
                    testTimeout: 300_000,
                    hookTimeout: 60_000,
                },
            },
            {
                extends: true,
                test: {
                    // Fault injection (tests/chaos): three server processes per file behind HAProxy, faulted through
                    // TCP proxies the tests own. Not in `npm test`'s run of everything: CI runs it as its own part.
                    name: 'chaos',
                    environment: 'node',
                    include: ['tests/chaos/**/*.test.ts'],
                    globalSetup: ['tests/serverBundleSetup.ts'],
                    setupFiles: ['tests/cpuPerFile.ts'],
                    testTimeout: 240_000,
                    hookTimeout: 240_000,
                },
            },
            {
                extends: true,
                test: {
                    name: 'e2e',
                    environment: 'node',
                    include: ['tests/e2e/**/*.test.ts'],
                    globalSetup: ['tests/e2e/globalSetup.ts'],
                    testTimeout: 120_000,
                    hookTimeout: 240_000,
                    // One file at a time on the shared server and one Chromium, after the other projects (group 0) are
                    // done, so pages are not timed against test workers.
                    fileParallelism: false,
                    sequence: { groupOrder: 1 },
                },
            },
        ],
    },
});
