import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npx tsx tests/bench/statements.ts DIR/statements.json [N]`: the database thread's time per statement (the api bench
 * with API_PROFILE=DIR writes it, from server/db/pgliteWorker.mjs PGLITE_STATS), the N largest (default 20). With the
 * mix.json beside it, only statements run during the mix count. Device pages differing only in their LIMIT and OFFSET
 * count as one line (variants: how many texts it stands for). Wall-clock times: on a loaded machine read the shares.
 */
const [file, top = '20'] = process.argv.slice(2);
if (!file) {
    console.error('usage: tsx tests/bench/statements.ts DIR/statements.json [N]');
    process.exit(2);
}
const entries = JSON.parse(readFileSync(file, 'utf8')) as Array<{ sql: string; at: Array<[number, number]> }>;
const windowFile = path.join(path.dirname(file), 'mix.json');
const window = existsSync(windowFile)
    ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { from: number; to: number })
    : { from: -Infinity, to: Infinity };
const lines = new Map<string, { n: number; ms: number; variants: number }>();
let total = 0;
for (const { sql, at } of entries) {
    const inside = at.filter(([t]) => t >= window.from && t <= window.to);
    if (!inside.length) continue;
    const key = sql.replace(/\s+/g, ' ').replace(/limit \d+ offset \d+/gi, 'limit N offset N');
    const line = lines.get(key) ?? { n: 0, ms: 0, variants: 0 };
    line.n += inside.length;
    line.ms += inside.reduce((sum, [, us]) => sum + us / 1000, 0);
    line.variants++;
    lines.set(key, line);
    total += inside.reduce((sum, [, us]) => sum + us / 1000, 0);
}
const seconds = Number.isFinite(window.from) ? ` over the mix's ${((window.to - window.from) / 1e6).toFixed(1)} s` : '';
console.log(`${total.toFixed(0)} ms in statements${seconds}`);
console.log('      ms  share   count  ms each  variants  statement');
for (const [sql, l] of [...lines].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(top)))
    console.log(
        `${l.ms.toFixed(0).padStart(8)} ${((100 * l.ms) / total).toFixed(1).padStart(5)} % ${String(l.n).padStart(7)} ${(l.ms / l.n).toFixed(3).padStart(8)} ${String(l.variants).padStart(9)}  ${sql.slice(0, 160)}`,
    );
