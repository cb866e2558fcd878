import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BenchFailure } from './failure';

/**
 * `npm run bench [-- NAME ...]`: runs the benchmark groups (all, or the named ones), prints each figure on its
 * own line as `group.name: value unit`, and merges them into bench-results.json. Figures are for reading,
 * not pass/fail.
 */
export interface Figure {
    name: string;
    value: number;
    unit: string;
}

export interface BenchGroup {
    name: string;
    /** What the machine lacks to run this group, said with how to install it (undefined: nothing). */
    missing?(): string | undefined;
    run(): Promise<Figure[]>;
    /** Runs only when named (`npm run bench -- soak`): too long for a run of every group. */
    onlyWhenNamed?: boolean;
}

// One line per group.
const groups: Array<() => Promise<{ default: BenchGroup }>> = [
    () => import('./server'),
    () => import('./bundle'),
    () => import('./devices'),
    () => import('./propertyHistory'),
    () => import('./dashboard'),
    () => import('./mapRender'),
    () => import('./coldStart'),
    () => import('./api'),
    () => import('./mqtt'),
    () => import('./amqp'),
    () => import('./rules'),
    () => import('./video'),
    () => import('./store'),
    () => import('./demoCost'),
    () => import('./ota'),
    () => import('./fuzz'),
    () => import('./forward'),
    () => import('./connMemory'),
    () => import('./soak'),
];

interface Results {
    updated: string;
    node: string;
    figures: Array<Figure & { group: string }>;
}

const RESULTS_FILE = path.resolve('bench-results.json');

async function main(): Promise<void> {
    const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
    const loaded = await Promise.all(groups.map(async (load) => (await load()).default));
    const unknown = wanted.filter((w) => !loaded.some((g) => g.name === w));
    if (unknown.length) {
        console.error(
            `没有这些分组 / unknown groups: ${unknown.join(', ')}; 可用 / available: ${loaded.map((g) => g.name).join(', ')}`,
        );
        process.exit(2);
    }
    const selected = wanted.length
        ? loaded.filter((g) => wanted.includes(g.name))
        : loaded.filter((g) => !g.onlyWhenNamed);

    const previous: Results | undefined = existsSync(RESULTS_FILE)
        ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results)
        : undefined;
    const figures = (previous?.figures ?? []).filter((f) => !selected.some((g) => g.name === f.group));
    let failed = false;
    for (const group of selected) {
        // A program the group needs and the machine lacks: say which and how to install it, not a stack trace.
        const missing = group.missing?.();
        if (missing) {
            failed = true;
            console.error(`${group.name}: 无法运行 / cannot run: ${missing}`);
            continue;
        }
        const print = (figure: Figure) => {
            console.log(`${group.name}.${figure.name}: ${figure.value} ${figure.unit}`);
            figures.push({ group: group.name, ...figure });
        };
        try {
            for (const figure of await group.run()) print(figure);
        } catch (err) {
            if (err instanceof BenchFailure) err.figures.forEach(print);
            failed = true;
            console.error(`${group.name}: 失败 / failed: ${err instanceof Error ? err.message : String(err)}`);
        }
    }
    const results: Results = { updated: new Date().toISOString(), node: process.version, figures };
    writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + '\n');
    console.log(`→ ${path.relative(process.cwd(), RESULTS_FILE)}`);
    process.exit(failed ? 1 : 0);
}

await main();
