import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';

/** @typedef {import('vitest/node').TestSpecification} TestSpecification */

/**
 * Seconds each slow test file took on a 2-core machine (e2e: two shards side by side, 2026-12-07; the rest take a few). A fresh clone has no vitest cache,
 * so without these vitest ran files in name order: the scaffolder's test (tests/unit, the last project by name) ran
 * alone at the end of CI's main stage for two minutes while the other worker sat idle, and the e2e shards (split by
 * file-name hash) differed by a minute. Re-measure from a JSON report when a file grows slow or fast.
 */
/** @type {Record<string, number>} */
const SECONDS = {
    'tests/e2e/demoLive.test.ts': 69,
    'tests/e2e/devices.test.ts': 45,
    'tests/e2e/rules.test.ts': 40,
    'tests/e2e/map.test.ts': 37,
    'tests/e2e/video.test.ts': 34,
    'tests/e2e/screens.test.ts': 34,
    'tests/e2e/deviceDetail.test.ts': 30,
    'tests/e2e/ota.test.ts': 24,
    'tests/e2e/dashboard.test.ts': 19,
    'tests/e2e/groups.test.ts': 19,
    'tests/e2e/deviceTelemetry.test.ts': 17,
    'tests/e2e/mapClusters.test.ts': 16,
    'tests/e2e/projects.test.ts': 13,
    'tests/e2e/subscription.test.ts': 12,
    'tests/e2e/simulation.test.ts': 11,
    'tests/e2e/signIn.test.ts': 9,
    'tests/e2e/tls.test.ts': 9,
    'tests/e2e/products.test.ts': 9,
    'tests/e2e/help.test.ts': 8,
    'tests/server/startup.test.ts': 31,
    'tests/server/clusterFailover.test.ts': 21,
    'tests/server/rulesCluster.test.ts': 21,
    'tests/server/tls.test.ts': 17,
    'tests/server/otaStop.test.ts': 13,
    'tests/server/packetLimit.test.ts': 13,
    'tests/server/partitionsMigration.test.ts': 13,
    'tests/server/contract.test.ts': 12,
    'tests/server/clusterFence.test.ts': 11,
    'tests/server/clusterFigures.test.ts': 11,
    'tests/server/videoStream.test.ts': 10,
    'tests/resources/thingModel.test.tsx': 28,
    'tests/resources/projects.test.tsx': 19,
    'tests/resources/videoDevices.test.tsx': 19,
    'tests/resources/groups.test.tsx': 17,
    'tests/resources/deviceDetail.test.tsx': 16,
    'tests/resources/deviceTelemetry.test.tsx': 16,
    'tests/resources/devicesTabs.test.tsx': 14,
    'tests/resources/products.test.tsx': 14,
    'tests/resources/docsExample.test.tsx': 14,
    'tests/resources/devices.test.tsx': 14,
    'tests/resources/simulations.test.tsx': 13,
    'tests/resources/projectsOverview.test.tsx': 12,
    'tests/resources/forward.test.tsx': 13,
    'tests/resources/productDetail.test.tsx': 10,
    'tests/resources/enginePages.test.tsx': 9,
    'tests/resources/helpScreens.test.tsx': 8,
    'tests/resources/ota.test.tsx': 8,
    'tests/resources/people.test.tsx': 8,
    'tests/resources/productDataScript.test.tsx': 8,
};
const DEFAULT_SECONDS = 3;

/**
 * The projects of one run in the order they start: the unit project's long scaffolder test first, beside the others,
 * rather than last and alone; then the server files, which wait on sockets, timers and databases (alone, the cores
 * idled 14-19 % of their minutes), while CI's PostgreSQL pass and fault suite fill those waits; the resources files,
 * all CPU (jsdom), last. Each project's files stay together (a worker of a non-isolated project is reused for the
 * project's next file).
 */
const PROJECT_ORDER = ['unit', 'server', 'resources'];

/**
 * Longest first within each project (and sequence.groupOrder, as vitest does), from the last run's times in vitest's
 * cache or else the table above; e2e shards balanced by those times (each file to the lighter shard, longest first)
 * rather than by file-name hash.
 */
export class SlowFirstSequencer extends BaseSequencer {
    /** @param {TestSpecification} file */
    seconds(file) {
        const name = relative(this.ctx.config.root, file.moduleId);
        const cached = this.ctx.cache.getFileTestResults(`${file.project.name}:${name}`)?.duration;
        return cached !== undefined ? cached / 1000 : (SECONDS[name] ?? DEFAULT_SECONDS);
    }

    /** @param {TestSpecification[]} files */
    async sort(files) {
        /** @param {TestSpecification} f */
        const projectRank = (f) => {
            const i = PROJECT_ORDER.indexOf(f.project.name);
            return i < 0 ? PROJECT_ORDER.length : i;
        };
        return [...files].sort(
            (a, b) =>
                a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
                projectRank(a) - projectRank(b) ||
                a.project.name.localeCompare(b.project.name) ||
                this.seconds(b) - this.seconds(a),
        );
    }

    /** @param {TestSpecification[]} files */
    async shard(files) {
        const { index, count } = this.ctx.config.shard;
        const root = this.ctx.config.root;
        // The table only, not the cache: every shard's process must split the files the same way.
        /** @param {TestSpecification} f */
        const weight = (f) => SECONDS[relative(root, f.moduleId)] ?? DEFAULT_SECONDS;
        const ordered = [...files].sort(
            (a, b) => weight(b) - weight(a) || relative(root, a.moduleId).localeCompare(relative(root, b.moduleId)),
        );
        const load = new Array(count).fill(0);
        /** @type {TestSpecification[]} */
        const mine = [];
        for (const file of ordered) {
            const lightest = load.indexOf(Math.min(...load));
            load[lightest] += weight(file);
            if (lightest === index - 1) mine.push(file);
        }
        return mine;
    }
}
