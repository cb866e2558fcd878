import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { generatedPaths, loadGenerated, loadTls, makeCertificates } from '../../server/tls/certificates';
import { RENEW_BEFORE_DAYS, renewIfDue } from '../../server/tls/generated';
import { watchTls } from '../../server/tls/reload';
import { tmpDir } from './tlsSupport';

const DAY_MS = 86_400_000;
const PRIVATE_KEY = /PRIVATE KEY/;

/** A chain and its key in one PEM file, the way HAProxy and many operators keep it. */
async function combinedPem(dir: string) {
    const made = await makeCertificates({ dns: ['localhost'], ip: ['127.0.0.1'] });
    const file = path.join(dir, 'combined.pem');
    writeFileSync(file, made.certPem + made.caPem + made.keyPem);
    return { file, made };
}

describe('certificates and keys are kept apart', () => {
    let s: TestServer;
    beforeAll(async () => {
        s = await createTestServer({ seed: false, config: { tls: true } });
    });
    afterAll(async () => s?.close());

    it('reads a combined PEM as certificates for the chain and the key alone for the key', async () => {
        const { file, made } = await combinedPem(tmpDir('tls-combined-'));
        const material = await loadTls({ dataDir: tmpDir('tls-data-'), certFile: file, keyFile: file });
        expect(material.cert).not.toMatch(PRIVATE_KEY);
        expect(material.cert).toContain(made.certPem.trim());
        expect(material.key).not.toMatch(/CERTIFICATE/);
        expect(material.key.trim()).toBe(made.keyPem.trim());
        expect(material.caPem).not.toMatch(PRIVATE_KEY);
    });

    it('serves certificate blocks only from /api/platform/ca.pem, never the key beside them', async () => {
        const { file, made } = await combinedPem(tmpDir('tls-combined-'));
        const material = await loadTls({ dataDir: tmpDir('tls-data-'), certFile: file, keyFile: file });
        Object.assign(s.config, { tlsCaFile: material.caFile });
        const answer = await s.fetch('/api/platform/ca.pem');
        expect(answer.status).toBe(200);
        const text = await answer.text();
        expect(text).not.toMatch(PRIVATE_KEY);
        expect(text).toContain(made.caPem.trim());
        expect(new X509Certificate(text).fingerprint256).toBeTruthy();
    });

    it('refuses to serve a CA file that holds no certificate', async () => {
        const dir = tmpDir('tls-keyonly-');
        const file = path.join(dir, 'key.pem');
        writeFileSync(file, (await makeCertificates({ dns: ['localhost'], ip: [] })).keyPem);
        Object.assign(s.config, { tlsCaFile: file });
        const answer = await s.fetch('/api/platform/ca.pem');
        expect(answer.status).toBe(404);
        const body = await answer.text();
        expect(body).not.toMatch(PRIVATE_KEY);
        expect(JSON.parse(body).msg).toContain('不含证书');
    });
});

describe('the generated certificate is renewed before it expires', () => {
    /** Generated files whose server certificate was issued `daysAgo` days ago (it lives 825 days). */
    async function generatedIssued(daysAgo: number) {
        const dataDir = tmpDir('tls-renew-');
        await loadGenerated(dataDir); // makes the CA and a certificate
        const p = generatedPaths(dataDir);
        const old = await makeCertificates(
            { dns: ['localhost'], ip: ['127.0.0.1'] },
            new Date(Date.now() - daysAgo * DAY_MS),
        );
        // An older server certificate signed by another CA stands for "issued long ago": renewal must sign with the
        // CA in DATA_DIR/tls (the one devices trust), so the fingerprint devices pin stays.
        writeFileSync(p.cert, old.certPem + readFileSync(p.ca, 'utf8'));
        writeFileSync(p.key, old.keyPem);
        return { dataDir, p, ca: new X509Certificate(readFileSync(p.ca)) };
    }

    it('re-issues a server certificate close to expiry from the same CA', async () => {
        const { dataDir, p, ca } = await generatedIssued(825 - RENEW_BEFORE_DAYS + 5);
        const before = new X509Certificate(readFileSync(p.cert));
        const renewed = await renewIfDue(dataDir);
        expect(renewed).toBe(true);
        const after = new X509Certificate(readFileSync(p.cert));
        expect(after.serialNumber).not.toBe(before.serialNumber);
        expect(new Date(after.validTo).getTime()).toBeGreaterThan(Date.now() + 800 * DAY_MS);
        expect(after.verify(ca.publicKey)).toBe(true);
        expect(after.checkPrivateKey((await import('node:crypto')).createPrivateKey(readFileSync(p.key)))).toBe(true);
        expect(await renewIfDue(dataDir)).toBe(false);
    });

    it('starts with an expired generated certificate by renewing it, rather than refusing to start', async () => {
        const { dataDir, ca } = await generatedIssued(900);
        const material = await loadGenerated(dataDir);
        const leaf = new X509Certificate(
            material.cert.split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----',
        );
        expect(new Date(leaf.validTo).getTime()).toBeGreaterThan(Date.now());
        expect(material.fingerprint).toBe(ca.fingerprint256);
    });

    it('hands a renewed certificate to the listeners without a restart', async () => {
        const { dataDir } = await generatedIssued(825 - 10);
        const first = await loadGenerated(dataDir, { renew: false });
        const applied: string[] = [];
        const watcher = watchTls(
            first,
            dataDir,
            (next) => applied.push(next.cert),
            () => undefined,
        );
        try {
            await watcher.renew();
            expect(applied).toHaveLength(1);
            expect(applied[0]).not.toBe(first.cert);
            expect(watcher.current.fingerprint).toBe(first.fingerprint);
        } finally {
            watcher.close();
        }
    });
});
