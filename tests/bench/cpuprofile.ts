import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npx tsx tests/bench/cpuprofile.ts FILE.cpuprofile [N]`: self time by package or source file and by function, the N
 * largest of each (default 25). With a mix.json beside the profile (API_PROFILE=DIR of the api bench), only the
 * samples taken during the mix count. The profiler samples wall-clock time: on a loaded machine the shares, not the
 * milliseconds, are what to read.
 */
interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
    nodes: Node[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
}

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
    console.error('usage: tsx tests/bench/cpuprofile.ts FILE.cpuprofile [N]');
    process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const windowFile = path.join(path.dirname(file), 'mix.json');
const window = existsSync(windowFile)
    ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { from: number; to: number })
    : { from: -Infinity, to: Infinity };

const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
/** From node_modules: the package; from the project: its path; else V8's own name ((garbage collector), writev...). */
const place = (url: string) => {
    const modules = url.lastIndexOf('/node_modules/');
    if (modules >= 0) {
        const parts = url.slice(modules + 14).split('/');
        return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    }
    const server = url.indexOf('/server/');
    return server >= 0 ? url.slice(server + 1) : url.replace('file://', '');
};

const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
let at = profile.startTime;
profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at < window.from || at > window.to) return;
    const frame = frames.get(id)!;
    const ms = profile.timeDeltas[i] / 1000;
    total += ms;
    const where = place(frame.url) || frame.functionName;
    byPlace.set(where, (byPlace.get(where) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${place(frame.url)}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
});

const print = (title: string, counts: Map<string, number>) => {
    console.log(`== ${title}`);
    for (const [name, ms] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
        console.log(`${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}`);
};
console.log(`${total.toFixed(0)} ms sampled${Number.isFinite(window.from) ? ' during the mix' : ''}`);
print('self time by package or file', byPlace);
print('self time by function', byFunction);
