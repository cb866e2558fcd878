import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCertificates } from '../../server/tls/certificates';
import { ROOT } from './support';
import { givenFiles, tmpDir } from './tlsSupport';
import { serverCommand } from '../serverBundle';

/**
 * The real start-up (server/index.ts) with TLS: the generated CA printed with its fingerprint and reused on the next
 * start, TLS_ONLY=1, and each bad certificate configuration refusing to start with the file and the problem named.
 */

interface Run {
    child: ChildProcess;
    output: () => string;
    exited: Promise<number | null>;
}
const started: ChildProcess[] = [];
afterAll(() => {
    for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
});

function startServer(env: Record<string, string>): Run {
    const { DATABASE_URL: _db, ...parent } = process.env;
    const child = spawn(process.execPath, serverCommand(), {
        cwd: ROOT,
        env: {
            ...parent,
            HOST: '127.0.0.1',
            PORT: '0',
            MQTT_PORT: '0',
            AMQP_PORT: '0',
            SIP_PORT: '0',
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            SEED_DEMO: '0',
            ADMIN_PASSWORD: 'Tls_Start_123',
            PUBLIC_DIR: path.join(ROOT, 'no-console-build'),
            ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stderr!.on('data', (d) => (text += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, output: () => text, exited };
}

async function ready(run: Run): Promise<string> {
    const deadline = Date.now() + 90_000;
    while (!run.output().includes('按 Ctrl+C 停止')) {
        if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`did not start:\n${run.output()}`);
        await new Promise((r) => setTimeout(r, 100));
    }
    return run.output();
}

const portOf = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1]);

describe('start-up with TLS', () => {
    it('makes a CA on the first start (key 0600), prints it with its fingerprint, reuses it; TLS_ONLY=1 closes the plain listeners', async () => {
        const dataDir = tmpDir('tls-start-');
        const first = startServer({ DATA_DIR: dataDir });
        const text = await ready(first);
        const caFile = path.join(dataDir, 'tls', 'ca.pem');
        const fingerprint = new X509Certificate(readFileSync(caFile)).fingerprint256;
        expect(text).toContain(`TLS CA: ${caFile}（SHA-256 ${fingerprint}）`);
        expect(statSync(path.join(dataDir, 'tls', 'server-key.pem')).mode & 0o777).toBe(0o600);
        expect(statSync(path.join(dataDir, 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
        expect(text).toMatch(/MQTTS: mqtts:\/\/127\.0\.0\.1:\d+/);
        expect(text).toMatch(/AMQPS: amqps:\/\/127\.0\.0\.1:\d+/);
        first.child.kill('SIGTERM');
        await first.exited;

        const only = startServer({ DATA_DIR: dataDir, TLS_ONLY: '1' });
        const again = await ready(only);
        expect(again).toContain(`SHA-256 ${fingerprint}`); // the same CA: devices keep trusting it
        expect(again).not.toMatch(/MQTT: mqtt:\/\//);
        expect(again).not.toMatch(/AMQP: amqp:\/\//);
        expect(again).toContain('已关闭（TLS_ONLY=1）');
        const http = portOf(again, /控制台: http:\/\/127\.0\.0\.1:(\d+)\//);
        const https = portOf(again, /HTTPS: https:\/\/127\.0\.0\.1:(\d+)\//);
        const redirect = await fetch(`http://127.0.0.1:${http}/devices?x=1`, { redirect: 'manual' });
        expect(redirect.status).toBe(308);
        expect(redirect.headers.get('location')).toBe(`https://127.0.0.1:${https}/devices?x=1`);
        // The plain WebSocket /mqtt is gone with it; HTTPS answers with the CA.
        const status = await new Promise<number>((resolve, reject) =>
            request(
                {
                    host: '127.0.0.1',
                    port: https,
                    path: '/api/platform/info',
                    ca: readFileSync(caFile),
                    servername: 'localhost',
                },
                (res) => resolve(res.statusCode!),
            )
                .on('error', reject)
                .end(),
        );
        expect(status).toBe(401);
        only.child.kill('SIGTERM');
        await only.exited;
    }, 240_000);

    it('refuses to start on each bad certificate configuration, naming the file and the problem', async () => {
        const dir = tmpDir('tls-bad-');
        const good = await givenFiles(dir);
        const old = await makeCertificates(
            { dns: ['localhost'], ip: ['127.0.0.1'] },
            new Date(Date.now() - 3 * 365 * 86_400_000),
        );
        const expired = path.join(dir, 'expired.pem');
        writeFileSync(expired, old.certPem);
        const expiredKey = path.join(dir, 'expired-key.pem');
        writeFileSync(expiredKey, old.keyPem);
        const other = await makeCertificates({ dns: ['localhost'], ip: [] });
        const otherKey = path.join(dir, 'other-key.pem');
        writeFileSync(otherKey, other.keyPem);
        const aDirectory = path.join(dir, 'cert-is-a-directory');
        mkdirSync(aDirectory);
        const missing = path.join(dir, 'missing.pem');
        const cases: Array<[string, Record<string, string>, string[]]> = [
            [
                'missing',
                { TLS_CERT_FILE: missing, TLS_KEY_FILE: good.keyFile },
                [missing, '证书文件不存在', 'not found'],
            ],
            [
                'unreadable',
                { TLS_CERT_FILE: aDirectory, TLS_KEY_FILE: good.keyFile },
                [aDirectory, '无法读取', 'cannot read'],
            ],
            ['expired', { TLS_CERT_FILE: expired, TLS_KEY_FILE: expiredKey }, [expired, '过期', 'expired']],
            [
                'mismatched',
                { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: otherKey },
                [otherKey, '不匹配', 'does not match'],
            ],
            ['no key', { TLS_CERT_FILE: good.certFile }, [good.certFile, 'TLS_KEY_FILE', 'is not']],
        ];
        const runs = cases.map(([, env]) => startServer({ DATA_DIR: tmpDir('tls-bad-data-'), ...env }));
        for (const [i, [name, , words]] of cases.entries()) {
            expect(await runs[i].exited, name).toBe(1);
            for (const w of words) expect(runs[i].output(), name).toContain(w);
            expect(runs[i].output(), name).toContain('TLS 配置错误');
            expect(runs[i].output(), name).toContain('TLS configuration error');
        }
    }, 240_000);
});
