import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { otaSecret } from '../db/schema';

/**
 * Download links a device may use without signing in (OTA firmware, remote configuration files):
 * `{path}?{idParam}={id}&expires={ms}&signature={hex}`, where the signature is HMAC-SHA256 of `{scope}{id}.{expires}`
 * under one key made once per database (table ota_secret), so every process of one platform signs and checks alike.
 * Changing the id, the expiry or the path's kind (the scope keeps a firmware signature from opening a configuration
 * file of the same id) breaks the signature.
 */

export interface LinkKind {
    /** The download path, e.g. /api/ota/download. */
    path: string;
    /** The query parameter naming what is downloaded, e.g. packageId. */
    idParam: string;
    /** What an id looks like (anything else is 'invalid' without computing a signature). */
    idPattern: RegExp;
    /** Put before the signed text, so links of different kinds never share a signature ('' for OTA's, as first made). */
    scope: string;
}

/** The platform's link key, made on first use and read once per process. */
export function linkKey(db: Db): () => Promise<Buffer> {
    let key: Promise<Buffer> | undefined;
    return () =>
        (key ??= (async () => {
            await db
                .insert(otaSecret)
                .values({ id: 1, secret: randomBytes(32).toString('hex') })
                .onConflictDoNothing();
            const [row] = await db.select().from(otaSecret).where(eq(otaSecret.id, 1));
            return Buffer.from(row.secret, 'hex');
        })().catch((err: unknown) => {
            key = undefined;
            throw err;
        }));
}

export type LinkVerdict = 'ok' | 'expired' | 'invalid';

/** Signs and checks links of one kind under the platform's key. */
export function createLinkSigner(key: () => Promise<Buffer>, kind: LinkKind) {
    const mac = async (id: string, expires: number) =>
        createHmac('sha256', await key())
            .update(`${kind.scope}${id}.${expires}`)
            .digest('hex');
    return {
        /** The path and query of a download of `id` valid until `expires` (ms since the epoch). */
        async sign(id: string | number, expires: number): Promise<string> {
            const signature = await mac(String(id), expires);
            return `${kind.path}?${kind.idParam}=${encodeURIComponent(String(id))}&expires=${expires}&signature=${signature}`;
        },
        /** 'ok', 'expired' or 'invalid' (altered, missing parts). */
        async check(
            id: string | undefined,
            expires: string | undefined,
            signature: string | undefined,
            now: number,
        ): Promise<LinkVerdict> {
            if (!id || !kind.idPattern.test(id) || !expires || !/^\d{1,15}$/.test(expires)) return 'invalid';
            if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
            const want = Buffer.from(await mac(id, Number(expires)), 'hex');
            if (!timingSafeEqual(want, Buffer.from(signature, 'hex'))) return 'invalid';
            return Number(expires) < now ? 'expired' : 'ok';
        },
    };
}

export type LinkSigner = ReturnType<typeof createLinkSigner>;
