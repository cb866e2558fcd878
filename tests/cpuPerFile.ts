import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * TEST_CPU_LOG=file: each test file's CPU seconds (this worker's threads, PGlite's among them, and the child
 * processes it started and waited for) and wall seconds, a JSON line per file appended to the file; then
 * `node scripts/cpuPerFile.mjs file` lists the costliest. CI runs on two cores, so its minutes follow the CPU the
 * files use, not their wall time (a file waiting on a timer costs little). Without TEST_CPU_LOG, nothing is measured.
 */

const log = process.env.TEST_CPU_LOG;

/** CPU seconds of this process and of its children waited for (/proc/self/stat's utime … cstime, in ticks). */
function cpuSeconds(): number {
    const own = process.cpuUsage();
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After the name: field 3 is index 0, so cutime (16) and cstime (17) are 13 and 14; 100 ticks a second on Linux.
    const children = (Number(fields[13]) + Number(fields[14])) / 100;
    return (own.user + own.system) / 1e6 + children;
}

if (log) {
    let cpu = 0;
    let wall = 0;
    beforeAll(() => {
        cpu = cpuSeconds();
        wall = performance.now();
    });
    afterAll(() => {
        const file = expect.getState().testPath?.replace(`${process.cwd()}/`, '');
        const line = { file, cpu: cpuSeconds() - cpu, wall: (performance.now() - wall) / 1000 };
        appendFileSync(log, `${JSON.stringify(line)}\n`);
    });
}
