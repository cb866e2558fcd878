import { X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @peculiar/x509's dependency tsyringe needs the Reflect metadata API at load.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { certificateBlocks, loadGiven, readPem, type TlsMaterial } from './pem';

/**
 * The local CA and server certificate made on the first start in DATA_DIR/tls/ and reused after: made with
 * @peculiar/x509 (WebCrypto, ECDSA P-256: small keys and fast handshakes), checked by Node's own X509Certificate. The
 * server certificate lives 825 days (what browsers accept) and is re-issued from the same CA RENEW_BEFORE_DAYS before it
 * ends, so devices that pinned the CA keep trusting the platform.
 */

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const SERVER_DAYS = 825;
const CA_DAYS = 3650;
/** A generated server certificate is re-issued this many days before it ends. */
export const RENEW_BEFORE_DAYS = 30;

type Names = { dns: string[]; ip: string[] };

/** localhost, 127.0.0.1, ::1, the machine's host name and every interface address. */
export function localNames(): Names {
    const dns = new Set(['localhost', os.hostname()]);
    const ip = new Set(['127.0.0.1', '::1']);
    for (const infos of Object.values(os.networkInterfaces())) {
        for (const info of infos ?? []) ip.add(info.address.split('%')[0]);
    }
    return { dns: [...dns].filter(Boolean), ip: [...ip] };
}

function toPem(der: ArrayBuffer, label: string): string {
    const b64 = Buffer.from(der).toString('base64');
    return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

/** Written whole or not at all (a renewal must never leave half a key), readable by the owner only. */
function writeFileAtomic(file: string, text: string, mode = 0o644) {
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, text, { mode });
    chmodSync(part, mode);
    renameSync(part, file);
}

const serial = () =>
    randomBytes(16)
        .toString('hex')
        .replace(/^[89a-f]/, '1');

interface Ca {
    cert: x509.X509Certificate;
    keys: CryptoKeyPair;
}

async function makeCa(now: Date): Promise<Ca> {
    const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: serial(),
        name: `CN=IoT Platform Local CA ${os.hostname()}, O=IoT Platform`,
        notBefore: new Date(now.getTime() - DAY_MS),
        notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
        keys,
        signingAlgorithm: ALG,
        extensions: [
            new x509.BasicConstraintsExtension(true, 0, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
    });
    return { cert, keys };
}

/** A server certificate for `names` signed by `ca`, and its key, as PEM. */
async function issueServerCertificate(ca: Ca, names: Names, now: Date) {
    const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: 'CN=localhost, O=IoT Platform',
        issuer: ca.cert.subject,
        notBefore: new Date(now.getTime() - DAY_MS),
        notAfter: new Date(now.getTime() + SERVER_DAYS * DAY_MS),
        publicKey: keys.publicKey,
        signingKey: ca.keys.privateKey,
        signingAlgorithm: ALG,
        extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
            new x509.SubjectAlternativeNameExtension([
                ...names.dns.map((value) => ({ type: 'dns' as const, value })),
                ...names.ip.map((value) => ({ type: 'ip' as const, value })),
            ]),
            await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
    });
    return {
        certPem: cert.toString('pem') + '\n',
        keyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
    };
}

/** A new CA (10 years) and a server certificate signed by it (825 days) for `names`. */
export async function makeCertificates(names = localNames(), now = new Date()) {
    const ca = await makeCa(now);
    const server = await issueServerCertificate(ca, names, now);
    return {
        caPem: ca.cert.toString('pem') + '\n',
        caKeyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', ca.keys.privateKey), 'PRIVATE KEY'),
        ...server,
    };
}

/** The files of the generated CA in DATA_DIR/tls/. */
export function generatedPaths(dataDir: string) {
    const dir = path.join(dataDir, 'tls');
    return {
        dir,
        ca: path.join(dir, 'ca.pem'),
        caKey: path.join(dir, 'ca-key.pem'),
        cert: path.join(dir, 'server.pem'),
        key: path.join(dir, 'server-key.pem'),
    };
}

/** The CA of DATA_DIR/tls (certificate and keys), to sign a renewed server certificate. */
async function readCa(p: ReturnType<typeof generatedPaths>): Promise<Ca> {
    const cert = new x509.X509Certificate(certificateBlocks(readPem(p.ca, 'cert'))[0]);
    const der = Buffer.from(
        readPem(p.caKey, 'key')
            .replace(/-----[A-Z ]+-----/g, '')
            .replace(/\s+/g, ''),
        'base64',
    );
    const privateKey = await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']);
    const publicKey = await cert.publicKey.export(ALG, ['verify']);
    return { cert, keys: { privateKey, publicKey } as CryptoKeyPair };
}

/** The server certificate's end, or 0 when the file cannot be read as one. */
function serverCertificateEnd(file: string): number {
    try {
        const leaf = certificateBlocks(readFileSync(file, 'utf8'))[0];
        return leaf ? new Date(new X509Certificate(leaf).validTo).getTime() : 0;
    } catch {
        return 0;
    }
}

function writeServer(p: ReturnType<typeof generatedPaths>, server: { certPem: string; keyPem: string }, caPem: string) {
    // The key first: a reader between the two writes sees the old pair refused as mismatched, never a new key served
    // with an old certificate (the reload debounces both writes anyway).
    writeFileAtomic(p.key, server.keyPem, 0o600);
    // The server file carries the chain (leaf + CA) so a client that was given nothing else can still build it.
    writeFileAtomic(p.cert, server.certPem + caPem);
}

/**
 * Re-issues the generated server certificate from the same CA when it ends within RENEW_BEFORE_DAYS (or has ended).
 * Answers whether it did. A CA close to its own end is not renewed here: that changes what devices trust, and the
 * start-up says so instead.
 */
export async function renewIfDue(dataDir: string, now = new Date()): Promise<boolean> {
    const p = generatedPaths(dataDir);
    if (!existsSync(p.caKey)) return false; // a CA kept elsewhere: the operator renews
    if (serverCertificateEnd(p.cert) - now.getTime() > RENEW_BEFORE_DAYS * DAY_MS) return false;
    const ca = await readCa(p);
    writeServer(p, await issueServerCertificate(ca, localNames(), now), ca.cert.toString('pem') + '\n');
    return true;
}

/** The generated CA and server certificate: made on the first start, renewed when due, read after. */
export async function loadGenerated(dataDir: string, options: { renew?: boolean } = {}): Promise<TlsMaterial> {
    const p = generatedPaths(dataDir);
    if (!existsSync(p.cert) || !existsSync(p.key) || !existsSync(p.ca)) {
        mkdirSync(p.dir, { recursive: true, mode: 0o700 });
        const made = await makeCertificates();
        writeFileAtomic(p.ca, made.caPem);
        writeFileAtomic(p.caKey, made.caKeyPem, 0o600);
        writeServer(p, made, made.caPem);
    } else if (options.renew !== false) {
        await renewIfDue(dataDir);
    }
    const given = loadGiven(p.cert, p.key);
    const caPem = certificateBlocks(readPem(p.ca, 'cert'))[0] + '\n';
    return {
        ...given,
        caFile: p.ca,
        caPem,
        fingerprint: new X509Certificate(caPem).fingerprint256,
        generated: true,
    };
}
