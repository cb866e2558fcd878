import fs from 'node:fs/promises';
import os from 'node:os';
import lockfile from 'proper-lockfile';

/** Thrown when another live process holds the embedded database's directory. */
export class DataDirLockedError extends Error {
    readonly dir: string;
    constructor(dir: string, pid?: number) {
        super(
            `数据目录 ${dir} 正被另一个进程${pid ? `（PID ${pid}）` : ''}使用，拒绝启动。请先停止该进程，或用 DATA_DIR 指定其他目录。\n` +
                `Data directory ${dir} is in use by another process${pid ? ` (PID ${pid})` : ''}; refusing to start. ` +
                'Stop that process or set DATA_DIR to another directory.',
        );
        this.name = 'DataDirLockedError';
        this.dir = dir;
    }
}

interface Holder {
    pid: number;
    hostname: string;
}

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
}

async function readHolder(file: string): Promise<Holder | undefined> {
    try {
        return JSON.parse(await fs.readFile(file, 'utf8')) as Holder;
    } catch {
        return undefined;
    }
}

/**
 * PGlite takes no lock of its own, and two processes on one directory corrupt it. proper-lockfile makes
 * `<dir>.lock` atomically (mkdir) and refreshes its mtime; a holder that died is only noticed once the
 * mtime is stale (10 s), so we also record the holder's pid: a lock left by a dead process on this host is
 * taken over at once, which lets the server restart right after a crash.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
    await fs.mkdir(dir, { recursive: true });
    const lockPath = `${dir}.lock`;
    const pidPath = `${dir}.pid`;
    const options = {
        lockfilePath: lockPath,
        realpath: false,
        // The server keeps running on a compromised lock (e.g. the event loop was blocked past `stale`);
        // exiting would lose the request in flight, and the pid file still names us.
        onCompromised: (err: Error) => console.warn(`数据目录锁异常 / data directory lock compromised: ${err.message}`),
    };
    let release: () => Promise<void>;
    try {
        release = await lockfile.lock(dir, options);
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
        const holder = await readHolder(pidPath);
        const deadHere = holder && holder.hostname === os.hostname() && !isAlive(holder.pid);
        if (!deadHere) throw new DataDirLockedError(dir, holder?.pid);
        await fs.rm(lockPath, { recursive: true, force: true });
        release = await lockfile.lock(dir, options).catch((again: NodeJS.ErrnoException) => {
            throw again.code === 'ELOCKED' ? new DataDirLockedError(dir) : again;
        });
    }
    await fs.writeFile(pidPath, JSON.stringify({ pid: process.pid, hostname: os.hostname() } satisfies Holder));
    return async () => {
        await fs.rm(pidPath, { force: true });
        await release();
    };
}
