import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Reading an operator's certificate and key files. Certificates and keys are kept apart from the moment they are read:
 * a file may hold both (a chain and its key in one PEM, as HAProxy keeps it), and only certificate blocks ever go where
 * a certificate goes (the listeners' chain, the CA download) and only the key block where the key goes.
 */

export interface TlsMaterial {
    /** The private key block alone. */
    key: string;
    /** The certificate blocks alone: the leaf first, then the chain. */
    cert: string;
    /** The certificate devices trust: the generated CA, or the given chain's last certificate. */
    caFile: string | undefined;
    caPem: string | undefined;
    /** SHA-256 fingerprint (AA:BB:…) of caPem, or of the server certificate when no CA file is known. */
    fingerprint: string;
    /** The files watched for a replacement. */
    certFile: string;
    keyFile: string;
    /** True when the certificate file also holds a private key: it must not be handed to devices as it is. */
    certFileHoldsKey: boolean;
    generated: boolean;
}

/** A certificate or key that cannot be used: the server refuses to start with this message (Chinese and English). */
export class TlsConfigError extends Error {}

export function refuse(file: string, zh: string, en: string): never {
    throw new TlsConfigError(`TLS 配置错误：${file}：${zh}\nTLS configuration error: ${file}: ${en}`);
}

export function readPem(file: string, what: 'cert' | 'key'): string {
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

/** The certificate blocks of a PEM text, in order (anything else in it, a key included, is left out). */
export function certificateBlocks(text: string): string[] {
    return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** The private key blocks of a PEM text (PKCS#8, EC or RSA). */
export function privateKeyBlocks(text: string): string[] {
    return text.match(/-----BEGIN ((?:EC |RSA )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/g) ?? [];
}

/** Certificate blocks joined as one PEM text. */
export function certificatesPem(blocks: string[]): string {
    return blocks.map((b) => `${b}\n`).join('');
}

function parseChain(certFile: string, blocks: string[]): X509Certificate[] {
    if (!blocks.length) refuse(certFile, '不是 PEM 格式的证书', 'not a PEM certificate');
    try {
        return blocks.map((b) => new X509Certificate(b));
    } catch (err) {
        const message = (err as Error).message;
        refuse(certFile, `证书无法解析（${message}）`, `certificate cannot be parsed (${message})`);
    }
}

function parseKey(keyFile: string, keyText: string) {
    const blocks = privateKeyBlocks(keyText);
    if (blocks.length > 1) refuse(keyFile, '含有多个私钥', 'holds more than one private key');
    try {
        return { pem: `${blocks[0] ?? keyText}\n`, key: createPrivateKey(blocks[0] ?? keyText) };
    } catch (err) {
        const message = (err as Error).message;
        refuse(keyFile, `不是可用的 PEM 私钥（${message}）`, `not a usable PEM private key (${message})`);
    }
}

function checkDates(certFile: string, leaf: X509Certificate, now: Date) {
    if (new Date(leaf.validTo).getTime() < now.getTime()) {
        refuse(certFile, `证书已于 ${leaf.validTo} 过期，请更换证书`, `certificate expired on ${leaf.validTo}`);
    }
    if (new Date(leaf.validFrom).getTime() > now.getTime()) {
        refuse(certFile, `证书自 ${leaf.validFrom} 起才生效`, `certificate not valid before ${leaf.validFrom}`);
    }
}

/** Reads and checks a certificate (chain) and its key: readable, PEM, in date, the key matching the first certificate. */
export function loadGiven(certFile: string, keyFile: string, now = new Date()): TlsMaterial {
    const certText = readPem(certFile, 'cert');
    const blocks = certificateBlocks(certText);
    const chain = parseChain(certFile, blocks);
    const { pem: keyPem, key } = parseKey(keyFile, readPem(keyFile, 'key'));
    const leaf = chain[0];
    checkDates(certFile, leaf, now);
    if (!leaf.checkPrivateKey(key)) {
        refuse(keyFile, `私钥与证书 ${certFile} 不匹配`, `key does not match the certificate ${certFile}`);
    }
    const top = chain.at(-1)!;
    return {
        key: keyPem,
        cert: certificatesPem(blocks),
        caFile: chain.length > 1 ? certFile : undefined,
        caPem: chain.length > 1 ? top.toString() : undefined,
        fingerprint: top.fingerprint256,
        certFile,
        keyFile,
        certFileHoldsKey: privateKeyBlocks(certText).length > 0,
        generated: false,
    };
}
