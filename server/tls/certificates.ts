import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @peculiar/x509's dependency tsyringe needs the Reflect metadata API at load.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/**
 * The certificate every TLS listener serves (MQTTS, AMQPS, HTTPS): the files TLS_CERT_FILE / TLS_KEY_FILE name, or a
 * local CA and a server certificate made on the first start in DATA_DIR/tls/ and reused after. Made with
 * @peculiar/x509 (WebCrypto, ECDSA P-256: small keys and fast handshakes); Node's own X509Certificate checks them.
 */

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface TlsMaterial {
    key: string;
    cert: string;
    /** The certificate devices trust: the generated CA, or the given chain's last certificate. */
    caFile: string | undefined;
    caPem: string | undefined;
    /** SHA-256 fingerprint (AA:BB:…) of caPem, or of the server certificate when no CA file is known. */
    fingerprint: string;
    /** The files watched for a replacement. */
    certFile: string;
    keyFile: string;
    generated: boolean;
}

/** A certificate or key that cannot be used: the server refuses to start with this message (Chinese and English). */
export class TlsConfigError extends Error {}

function refuse(file: string, zh: string, en: string): never {
    throw new TlsConfigError(`TLS 配置错误：${file}：${zh}\nTLS configuration error: ${file}: ${en}`);
}

function readPem(file: string, what: 'cert' | 'key'): string {
    const zhWhat = what === 'cert' ? '证书文件' : '私钥文件';
    let text: string;
    try {
        text = readFileSync(file, 'utf8');
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
            refuse(file, `${zhWhat}不存在`, `${what === 'cert' ? 'certificate' : 'key'} file not found`);
        refuse(file, `${zhWhat}无法读取（${code ?? String(err)}）`, `cannot read the file (${code ?? String(err)})`);
    }
    return text;
}

/** The PEM blocks of a chain, in order. */
function pemBlocks(text: string): string[] {
    return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** Reads and checks a certificate (chain) and its key: readable, PEM, in date, the key matching the first certificate. */
export function loadGiven(certFile: string, keyFile: string, now = new Date()): TlsMaterial {
    const certText = readPem(certFile, 'cert');
    const keyText = readPem(keyFile, 'key');
    const blocks = pemBlocks(certText);
    if (!blocks.length) refuse(certFile, '不是 PEM 格式的证书', 'not a PEM certificate');
    let chain: X509Certificate[];
    try {
        chain = blocks.map((b) => new X509Certificate(b));
    } catch (err) {
        refuse(
            certFile,
            `证书无法解析（${(err as Error).message}）`,
            `certificate cannot be parsed (${(err as Error).message})`,
        );
    }
    let key;
    try {
        key = createPrivateKey(keyText);
    } catch (err) {
        refuse(
            keyFile,
            `不是可用的 PEM 私钥（${(err as Error).message}）`,
            `not a usable PEM private key (${(err as Error).message})`,
        );
    }
    const leaf = chain[0];
    if (new Date(leaf.validTo).getTime() < now.getTime()) {
        refuse(certFile, `证书已于 ${leaf.validTo} 过期，请更换证书`, `certificate expired on ${leaf.validTo}`);
    }
    if (new Date(leaf.validFrom).getTime() > now.getTime()) {
        refuse(certFile, `证书自 ${leaf.validFrom} 起才生效`, `certificate not valid before ${leaf.validFrom}`);
    }
    if (!leaf.checkPrivateKey(key)) {
        refuse(keyFile, `私钥与证书 ${certFile} 不匹配`, `key does not match the certificate ${certFile}`);
    }
    const top = chain.at(-1)!;
    return {
        key: keyText,
        cert: certText,
        caFile: chain.length > 1 ? certFile : undefined,
        caPem: chain.length > 1 ? top.toString() : undefined,
        fingerprint: top.fingerprint256,
        certFile,
        keyFile,
        generated: false,
    };
}

/** localhost, 127.0.0.1, ::1, the machine's host name and every interface address. */
export function localNames(): { dns: string[]; ip: string[] } {
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

function writeSecret(file: string, text: string) {
    writeFileSync(file, text, { mode: 0o600 });
    chmodSync(file, 0o600); // an existing file keeps its mode otherwise
}

/** A new CA (10 years) and a server certificate signed by it (825 days, what browsers accept) for `names`. */
export async function makeCertificates(names = localNames(), now = new Date()) {
    const serial = () =>
        randomBytes(16)
            .toString('hex')
            .replace(/^[89a-f]/, '1');
    const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: serial(),
        name: `CN=IoT Platform Local CA ${os.hostname()}, O=IoT Platform`,
        notBefore: new Date(now.getTime() - DAY_MS),
        notAfter: new Date(now.getTime() + 3650 * DAY_MS),
        keys: caKeys,
        signingAlgorithm: ALG,
        extensions: [
            new x509.BasicConstraintsExtension(true, 0, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
            await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
        ],
    });
    const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: 'CN=localhost, O=IoT Platform',
        issuer: ca.subject,
        notBefore: new Date(now.getTime() - DAY_MS),
        notAfter: new Date(now.getTime() + 825 * DAY_MS),
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ALG,
        extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
            new x509.SubjectAlternativeNameExtension([
                ...names.dns.map((value) => ({ type: 'dns' as const, value })),
                ...names.ip.map((value) => ({ type: 'ip' as const, value })),
            ]),
            await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
    });
    return {
        caPem: ca.toString('pem') + '\n',
        caKeyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', caKeys.privateKey), 'PRIVATE KEY'),
        certPem: cert.toString('pem') + '\n',
        keyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
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

/** The generated CA and server certificate: made on the first start, read after (checked like given files). */
export async function loadGenerated(dataDir: string): Promise<TlsMaterial> {
    const p = generatedPaths(dataDir);
    if (!existsSync(p.cert) || !existsSync(p.key) || !existsSync(p.ca)) {
        mkdirSync(p.dir, { recursive: true, mode: 0o700 });
        const made = await makeCertificates();
        writeFileSync(p.ca, made.caPem);
        writeSecret(p.caKey, made.caKeyPem);
        // The server file carries the chain (leaf + CA) so a client that was given nothing else can still build it.
        writeFileSync(p.cert, made.certPem + made.caPem);
        writeSecret(p.key, made.keyPem);
    }
    const given = loadGiven(p.cert, p.key);
    const caPem = readPem(p.ca, 'cert');
    return {
        ...given,
        caFile: p.ca,
        caPem,
        fingerprint: new X509Certificate(caPem).fingerprint256,
        generated: true,
    };
}

export interface TlsSettings {
    dataDir: string;
    certFile: string | undefined;
    keyFile: string | undefined;
}

/** The certificate to serve: the given files (both or neither), else the generated ones. */
export async function loadTls(settings: TlsSettings): Promise<TlsMaterial> {
    const { certFile, keyFile } = settings;
    if (certFile && !keyFile) {
        refuse(
            certFile,
            '设置了 TLS_CERT_FILE 但没有设置 TLS_KEY_FILE',
            'TLS_CERT_FILE is set but TLS_KEY_FILE is not',
        );
    }
    if (keyFile && !certFile) {
        refuse(keyFile, '设置了 TLS_KEY_FILE 但没有设置 TLS_CERT_FILE', 'TLS_KEY_FILE is set but TLS_CERT_FILE is not');
    }
    if (certFile && keyFile) return loadGiven(certFile, keyFile);
    return loadGenerated(settings.dataDir);
}
