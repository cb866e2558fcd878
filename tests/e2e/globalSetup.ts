import type { TestProject } from 'vitest/node';
import { haveChromium, startPrivateServer } from './support';

/**
 * One started server (`npm start` on free ports, seeded demo) for every e2e file of the run, instead of one per file:
 * each start costs a PGlite start, migrations and the seed. Files get it from `startServer()` (support.ts).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
    if (!haveChromium) return;
    // A quiet demo (DEMO_LIVE=0): its counts stay put under the files that read them. The live demo has its own
    // file and server (demoLive.test.ts).
    const server = await startPrivateServer({ DEMO_LIVE: '0' });
    project.provide('e2eServer', { url: server.url, dataDir: server.dataDir, output: server.output() });
    return () => server.stop();
}
