import { spawn } from 'node:child_process';
import path from 'node:path';
import { compiled } from '../compiled';
import { lineAsker, lineReader } from '../lineReader';

const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface Child {
    pid: number;
    /** Sends `name json` and answers the process's JSON line; an `{ error }` answer throws. */
    ask<T>(name: string, arg?: unknown): Promise<T>;
    stop(): Promise<void>;
}

/** One of the soak's helper processes (fleet.ts, consumers.ts), bundled and run with plain node. */
export async function startChild(entry: string, who: string): Promise<Child> {
    const child = spawn(process.execPath, [await compiled(entry)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    const next = lineReader(child, who);
    await next();
    const asker = lineAsker(child, next);
    return {
        pid: child.pid!,
        async ask<T>(name: string, arg?: unknown) {
            const answer = await asker<T & { error?: string }>(
                arg === undefined ? name : `${name} ${JSON.stringify(arg)}`,
            );
            if (answer.error) throw new Error(`${who} ${name}: ${answer.error}`);
            return answer;
        },
        async stop() {
            if (child.exitCode !== null) return;
            const exited = new Promise((r) => child.once('exit', r));
            child.kill('SIGKILL');
            await exited;
        },
    };
}
