import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The lines a bench's child process prints, one per call in order: each call answers the next line, waiting for it;
 * once the process has exited, every waiting or later call fails (`who` names it in the error).
 */
export function lineReader(child: ChildProcess, who = 'process'): () => Promise<string> {
    const queue: string[] = [];
    const waiters: Array<{ resolve: (l: string) => void; reject: (e: Error) => void }> = [];
    createInterface({ input: child.stdout! }).on('line', (l) => {
        const w = waiters.shift();
        if (w) w.resolve(l);
        else queue.push(l);
    });
    // One listener for the process's end: every waiter then fails (not one listener per line read).
    child.once('exit', (code) => {
        for (const w of waiters.splice(0)) w.reject(new Error(`${who} exited (${code})`));
    });
    return () =>
        new Promise<string>((resolve, reject) => {
            const l = queue.shift();
            if (l !== undefined) return resolve(l);
            if (child.exitCode !== null) return reject(new Error(`${who} exited (${child.exitCode})`));
            waiters.push({ resolve, reject });
        });
}

/**
 * Asks a bench's child process one question at a time: writes `line` to its stdin and answers its next printed line
 * as JSON. Questions wait for the one before (a sampler asking every 500 ms beside a slow question would otherwise
 * take the other's answer).
 */
export function lineAsker(child: ChildProcess, next: () => Promise<string>): <T>(line: string) => Promise<T> {
    let asking: Promise<unknown> = Promise.resolve();
    return <T>(line: string): Promise<T> => {
        const answer = asking.then(async () => {
            child.stdin!.write(line + '\n');
            return JSON.parse(await next()) as T;
        });
        asking = answer.catch(() => undefined);
        return answer;
    };
}
