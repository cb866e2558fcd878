// The test files that cost CI the most CPU: reads the JSON lines tests/cpuPerFile.ts wrote (TEST_CPU_LOG=file) and
// prints each file's CPU and wall seconds, costliest first, with the totals per project directory.
// Usage: node scripts/cpuPerFile.mjs FILE [how many, 30]
import { readFileSync } from 'node:fs';

const [file, top = '30'] = process.argv.slice(2);
if (!file) {
    console.error('usage: node scripts/cpuPerFile.mjs FILE [N]  (FILE written by TEST_CPU_LOG=FILE npm test)');
    process.exit(2);
}
const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .sort((a, b) => b.cpu - a.cpu);
const byDir = new Map();
for (const r of rows) {
    const dir = r.file.split('/').slice(0, 2).join('/');
    const d = byDir.get(dir) ?? { cpu: 0, wall: 0, files: 0 };
    byDir.set(dir, { cpu: d.cpu + r.cpu, wall: d.wall + r.wall, files: d.files + 1 });
}
const fmt = (n) => n.toFixed(1).padStart(7);
console.log('    CPU s  wall s  file');
for (const r of rows.slice(0, Number(top))) console.log(`${fmt(r.cpu)} ${fmt(r.wall)}  ${r.file}`);
console.log('\n    CPU s  wall s  files  directory');
for (const [dir, d] of [...byDir].sort((a, b) => b[1].cpu - a[1].cpu))
    console.log(`${fmt(d.cpu)} ${fmt(d.wall)}  ${String(d.files).padStart(5)}  ${dir}`);
