import type { OtaPackageRow } from './packages';
import type { UpgradeData } from './protocol';
import type { OtaState } from './state';

/** The origin devices download from: OTA_BASE_URL, else the platform's own port on this machine. */
export const downloadOrigin = (config: OtaState['config']) => config.ota.baseUrl ?? `http://127.0.0.1:${config.port}`;

/** What a push (and a firmware/get_reply) carries: the package and a signed download URL valid for OTA_URL_HOURS. */
export async function upgradeData(state: OtaState, pkg: OtaPackageRow): Promise<UpgradeData> {
    const expires = state.now().getTime() + state.config.ota.urlHours * 3_600_000;
    const md5 = pkg.signMethod === 'MD5';
    return {
        size: Number(pkg.size),
        version: pkg.version,
        url: `${downloadOrigin(state.config)}${await state.signer.sign(pkg.id, expires)}`,
        signMethod: pkg.signMethod,
        sign: md5 ? pkg.md5 : pkg.sha256,
        ...(md5 ? { md5: pkg.md5 } : {}),
        module: pkg.module,
    };
}
