// `npm test`: the checks (prettier, eslint, tsc --noEmit) beside every vitest project, on two cores at once rather
// than one after the other; arguments go to vitest (`npm test -- --project unit`). The checks' output is printed
// after the tests' (it is short; the tests' streams as they run). Exits non-zero when either failed.
import { spawn } from 'node:child_process';

const run = (command, args, options) =>
    new Promise((resolve) => {
        const child = spawn(command, args, options);
        let out = '';
        child.stdout?.on('data', (d) => (out += d));
        child.stderr?.on('data', (d) => (out += d));
        child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
    });

const started = Date.now();
const checks = run('bash', ['-c', 'npm run -s lint && npm run -s typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] });
const tests = run('vitest', ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
const [c, t] = await Promise.all([checks, tests]);
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\n== 代码检查 / checks (prettier, eslint, tsc): ${c.code === 0 ? '通过 / passed' : '失败 / FAILED'}`);
if (c.out.trim()) console.log(c.out.trimEnd());
if (c.code !== 0) console.log('npm test: the checks failed (above); fix them or run `npm run format` for prettier.');
console.log(`== npm test: ${seconds} s, vitest exit ${t.code}, checks exit ${c.code}`);
process.exit(c.code || t.code);
