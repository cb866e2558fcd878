import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { otaSecret } from '../db/schema';

/**
 * Download URLs a device may use without signing in: `/api/ota/download?packageId&expires&signature`, where the
 * signature is HMAC-SHA256 of `packageId.expires` under a key made once per database (table ota_secret), so every
 * process of one platform signs and checks alike. Changing the id or the expiry breaks the signature.
 */

export const DOWNLOAD_PATH = '/api/ota/download';

export function createSigner(db: Db) {
    let key: Promise<Buffer> | undefined;
    const load = () =>
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
    const mac = async (packageId: number, expires: number) =>
        createHmac('sha256', await load())
            .update(`${packageId}.${expires}`)
            .digest('hex');
    return {
        /** The path and query of a download of `packageId` valid until `expires` (ms since the epoch). */
        async sign(packageId: number, expires: number): Promise<string> {
            return `${DOWNLOAD_PATH}?packageId=${packageId}&expires=${expires}&signature=${await mac(packageId, expires)}`;
        },
        /** 'ok', 'expired' or 'invalid' (altered, missing parts). */
        async check(
            packageId: string | undefined,
            expires: string | undefined,
            signature: string | undefined,
            now: number,
        ): Promise<'ok' | 'expired' | 'invalid'> {
            if (!packageId || !/^\d{1,9}$/.test(packageId) || !expires || !/^\d{1,15}$/.test(expires)) return 'invalid';
            if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
            const want = Buffer.from(await mac(Number(packageId), Number(expires)), 'hex');
            if (!timingSafeEqual(want, Buffer.from(signature, 'hex'))) return 'invalid';
            return Number(expires) < now ? 'expired' : 'ok';
        },
    };
}

export type Signer = ReturnType<typeof createSigner>;
