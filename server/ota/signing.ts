import type { Db } from '../db/client';
import { createLinkSigner, linkKey, type LinkVerdict } from '../http/signedLinks';

/**
 * OTA download URLs a device may use without signing in: `/api/ota/download?packageId&expires&signature`, signed by the
 * platform's link key (server/http/signedLinks.ts, shared with remote configuration files).
 */

export const DOWNLOAD_PATH = '/api/ota/download';

export function createSigner(db: Db) {
    const links = createLinkSigner(linkKey(db), {
        path: DOWNLOAD_PATH,
        idParam: 'packageId',
        idPattern: /^\d{1,9}$/,
        scope: '',
    });
    return {
        /** The path and query of a download of `packageId` valid until `expires` (ms since the epoch). */
        sign: (packageId: number, expires: number): Promise<string> => links.sign(packageId, expires),
        /** 'ok', 'expired' or 'invalid' (altered, missing parts). */
        check: (
            packageId: string | undefined,
            expires: string | undefined,
            signature: string | undefined,
            now: number,
        ): Promise<LinkVerdict> => links.check(packageId, expires, signature, now),
    };
}

export type Signer = ReturnType<typeof createSigner>;
