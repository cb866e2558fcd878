import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Destination secrets (passwords, tokens, HMAC keys) at rest: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` in base64url.
 * The key is FORWARD_SECRET_KEY when set (kept outside the database: a stolen dump then holds no usable secret), else
 * derived with HKDF from the platform's own key in the database (table ota_secret), so every process of one platform
 * agrees and a secret never appears in plain text in a row, a log or an answer; docs/forwarding.md says which to use.
 */

export interface SecretBox {
    seal(secrets: Record<string, string>): string;
    /** The secrets; throws when the text was altered or sealed under another key. */
    open(sealed: string): Record<string, string>;
}

/** The 32-byte key from FORWARD_SECRET_KEY (any text, stretched with HKDF) or from the platform key. */
export function forwardKey(material: Buffer | string): Buffer {
    return Buffer.from(hkdfSync('sha256', Buffer.from(material), Buffer.alloc(0), 'iot-forward-secrets', 32));
}

export function secretBox(key: Buffer): SecretBox {
    return {
        seal(secrets) {
            const iv = randomBytes(12);
            const cipher = createCipheriv('aes-256-gcm', key, iv);
            const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
            return ['v1', iv, cipher.getAuthTag(), body]
                .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
                .join('.');
        },
        open(sealed) {
            const [version, iv, tag, body] = sealed.split('.');
            if (version !== 'v1' || !iv || !tag || body === undefined)
                throw new Error('密文格式不对 / malformed secret');
            const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
            decipher.setAuthTag(Buffer.from(tag, 'base64url'));
            const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
            return JSON.parse(text.toString('utf8')) as Record<string, string>;
        },
    };
}

/**
 * The platform's secret box, made on first use: from FORWARD_SECRET_KEY when given, else from the platform key in the
 * database (`platformKey`, server/http/signedLinks.ts linkKey).
 */
export function platformSecretBox(platformKey: () => Promise<Buffer>, envKey?: string): () => Promise<SecretBox> {
    let box: Promise<SecretBox> | undefined;
    return () =>
        (box ??= (async () => secretBox(forwardKey(envKey ? envKey : await platformKey())))().catch((err: unknown) => {
            box = undefined;
            throw err;
        }));
}
