import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from Linux's /proc, for the benches' figures by process and by thread (Node 20's process.cpuUsage() has no
 * per-thread figure): user + system in ms, at the kernel's 10 ms clock ticks.
 */

/** CPU ms so far of a process (all its threads; 'self' for this one) or, given a thread id, of that thread. */
export function cpuMsOf(pid: number | 'self', tid?: string): number {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    // After the command name in parentheses (which may hold spaces): state is field 0, utime 11 and stime 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms so far of each thread of a process, by thread id (the main thread's is the pid); empty without /proc. */
export function threadCpuMs(pid: number | 'self'): Map<string, number> {
    let tids: string[];
    try {
        tids = readdirSync(`/proc/${pid}/task`);
    } catch {
        return new Map();
    }
    return new Map(
        tids.map((tid) => {
            try {
                return [tid, cpuMsOf(pid, tid)] as const;
            } catch {
                return [tid, 0] as const; // a thread that ended meanwhile
            }
        }),
    );
}
