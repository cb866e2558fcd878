// `npm test`: the checks (prettier, eslint, tsc --noEmit) beside the vitest projects, on two cores at once rather
// than one after the other. Arguments go to vitest (`npm test -- --project unit`, or a file): such a run is one vitest
// process. A run of everything runs unit, resources, server and fuzz together (the e2e project's console and server build
// beside them), then the e2e files in three shards side by side, each with its own server and Chromium (one at a time
// they were 8.7 of CI's 23 minutes). A `--outputFile.json=F` report is written per process: F, then F's name with
// .e2e1, .e2e2 and .e2e3 (.ci/run sums them). A run of everything first writes the scaffolder's output where the checks and
// the resources project cover it (scripts/scaffoldCheck.ts). The checks' output is printed after the tests' (it is
// short; the tests' streams as they run). Exits non-zero when any part failed.
import { spawn } from 'node:child_process';

const run = (command, args, options) =>
    new Promise((resolve) => {
        const child = spawn(command, args, options);
        let out = '';
        child.stdout?.on('data', (d) => (out += d));
        child.stderr?.on('data', (d) => (out += d));
        child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
    });

const args = process.argv.slice(2);
// Three e2e shards side by side, each with its own server and Chromium: their files wait on timers, polls and the
// live demo, so a third shard fills the cores' idle (two shards 285 s, three 251 s, same machine).
const E2E_SHARDS = [1, 2, 3];
// Anything but `--option=value` options (a project, a file, a name filter) asks for one vitest run as given.
const everything = args.every((a) => a.startsWith('--') && a.includes('=') && !a.startsWith('--project='));
const report = (suffix) =>
    args.map((a) => (suffix && a.startsWith('--outputFile.json=') ? a.replace(/(\.json)?$/, `${suffix}.json`) : a));

async function tests() {
    if (!everything) return (await run('vitest', ['run', ...args], { stdio: 'inherit' })).code;
    const build = run(process.execPath, ['scripts/start.mjs', '--build-only'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const projects = ['unit', 'resources', 'server', 'fuzz'].flatMap((p) => ['--project', p]);
    const rest = await run('vitest', ['run', ...projects, ...report('')], { stdio: 'inherit' });
    const built = await build;
    if (built.code !== 0) console.log(`构建控制台失败 / the console build failed:\n${built.out}`);
    const shards = await Promise.all(
        E2E_SHARDS.map((i) =>
            run('vitest', ['run', '--project', 'e2e', `--shard=${i}/${E2E_SHARDS.length}`, ...report(`.e2e${i}`)], {
                stdio: 'inherit',
            }),
        ),
    );
    return Math.max(rest.code, ...shards.map((s) => s.code));
}

const started = Date.now();
// The scaffolder's output, held to the project's own checks (scripts/scaffoldCheck.ts): the contract fragment's
// scaffolds before vitest collects the resources project (it runs their msw tests), every contract group's before
// the lint and tsc that cover them.
const scaffoldCheck = (part) => `node --import tsx scripts/scaffoldCheck.ts --${part}`;
if (everything) {
    const fragment = await run('bash', ['-c', scaffoldCheck('fragment')], { stdio: 'inherit' });
    if (fragment.code !== 0) process.exit(fragment.code);
}
const checkSteps = [...(everything ? [scaffoldCheck('contract')] : []), 'npm run -s lint', 'npm run -s typecheck'];
const checks = run('bash', ['-c', checkSteps.join(' && ')], { stdio: ['ignore', 'pipe', 'pipe'] });
const [c, t] = await Promise.all([checks, tests()]);
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\n== 代码检查 / checks (prettier, eslint, tsc): ${c.code === 0 ? '通过 / passed' : '失败 / FAILED'}`);
if (c.out.trim()) console.log(c.out.trimEnd());
if (c.code !== 0) console.log('npm test: the checks failed (above); fix them or run `npm run format` for prettier.');
console.log(`== npm test: ${seconds} s, vitest exit ${t}, checks exit ${c.code}`);
process.exit(c.code || t);
