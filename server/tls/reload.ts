import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { loadGenerated, renewIfDue } from './generated';
import { loadGiven, type TlsMaterial } from './pem';

/**
 * Replacing the certificate files (a renewal) takes effect without a restart: on a change in their directory (files
 * are often replaced by rename, which a watch on the file itself would lose) or on SIGHUP, the files are read and
 * checked again and `apply` hands the new ones to every TLS listener (server.setSecureContext: connections already
 * made keep theirs). A bad replacement is logged and the certificate in use stays. A generated certificate is also
 * checked twice a day and re-issued from its CA before it ends (./generated.ts), then applied the same way.
 */
export function watchTls(
    initial: TlsMaterial,
    dataDir: string,
    apply: (material: TlsMaterial) => void,
    log: (line: string) => void = (line) => console.log(line),
    debounceMs = 300,
    renewEveryMs = 12 * 3_600_000,
) {
    let current = initial;
    let timer: NodeJS.Timeout | undefined;
    let running = Promise.resolve();

    async function reload(reason: string): Promise<boolean> {
        let next: TlsMaterial;
        try {
            next = current.generated ? await loadGenerated(dataDir) : loadGiven(current.certFile, current.keyFile);
        } catch (err) {
            log(`TLS 证书更新未生效（${reason}），继续使用原证书：${(err as Error).message}`);
            return false;
        }
        if (next.cert === current.cert && next.key === current.key) return false;
        current = next;
        apply(next);
        log(`TLS 证书已更新（${reason}）：${next.certFile}，新连接使用新证书，已有连接不受影响`);
        return true;
    }

    const queue = (reason: string) => {
        running = running.then(() => reload(reason).then(() => undefined));
        return running;
    };

    const names = new Set([path.basename(current.certFile), path.basename(current.keyFile)]);
    const watchers: FSWatcher[] = [];
    for (const dir of new Set([path.dirname(current.certFile), path.dirname(current.keyFile)])) {
        try {
            const w = watch(dir, (_event, name) => {
                if (name && !names.has(name.toString())) return;
                clearTimeout(timer);
                // A renewal writes the certificate and the key one after the other: read them once both are down.
                timer = setTimeout(() => void queue('文件已变更'), debounceMs);
            });
            w.on('error', () => undefined);
            watchers.push(w);
        } catch {
            // A directory that cannot be watched: SIGHUP still reloads.
        }
    }
    const onHup = () => void queue('SIGHUP');
    process.on('SIGHUP', onHup);

    /** Re-issues a generated certificate that is due and applies it. */
    const renew = async () => {
        if (!current.generated) return current;
        try {
            if (await renewIfDue(dataDir)) await queue('证书即将到期，已自动续期');
        } catch (err) {
            log(`TLS 证书自动续期失败，继续使用原证书：${(err as Error).message}`);
        }
        return current;
    };
    const renewTimer = setInterval(() => void renew(), renewEveryMs);
    renewTimer.unref();

    return {
        get current() {
            return current;
        },
        /** Reads the files again now (tests; SIGHUP does the same). */
        reload: () => queue('手动').then(() => current),
        renew,
        close() {
            clearTimeout(timer);
            clearInterval(renewTimer);
            for (const w of watchers) w.close();
            process.off('SIGHUP', onHup);
        },
    };
}
