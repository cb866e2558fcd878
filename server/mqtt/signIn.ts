import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Device sign-in, two schemes (docs/device-access.md):
 * - Alibaba Cloud IoT's: clientId `{id}|securemode=2|3,signmethod=hmacmd5|hmacsha1|hmacsha256,timestamp={ms}[,k=v]|`,
 *   username `{deviceName}&{productKey}`, password = hex HMAC(deviceSecret,
 *   `clientId{id}deviceName{dn}productKey{pk}timestamp{ms}`), keys of the content sorted by name as Alibaba does;
 * - plain: the username, clientId and password (the DeviceSecret) the device detail page shows.
 * Pure functions: the broker looks the device up and calls these.
 */

export type SignMethod = 'hmacmd5' | 'hmacsha1' | 'hmacsha256';

const ALGORITHMS: Record<SignMethod, string> = { hmacmd5: 'md5', hmacsha1: 'sha1', hmacsha256: 'sha256' };

export interface AlibabaClientId {
    id: string;
    signMethod: SignMethod;
    securemode?: string;
    timestamp?: string;
    /** Alibaba's dynamic registration (`register`, `regnwl`) or the sign-in with its device token (`connwl`). */
    authType?: string;
    /** The random value a dynamic registration signs. */
    random?: string;
}

/** The clientId's `{id}|k=v,k=v|` form, or undefined when it is a plain clientId. Unknown keys are ignored. */
export function parseClientId(clientId: string): AlibabaClientId | undefined | 'bad-signmethod' {
    const m = /^([^|]*)\|([^|]*)\|$/.exec(clientId);
    if (!m) return undefined;
    const params = new Map<string, string>();
    for (const pair of m[2].split(',')) {
        const at = pair.indexOf('=');
        if (at > 0) params.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const method = (params.get('signmethod') ?? 'hmacmd5').toLowerCase();
    if (!(method in ALGORITHMS)) return 'bad-signmethod';
    return {
        id: m[1],
        signMethod: method as SignMethod,
        securemode: params.get('securemode'),
        timestamp: params.get('timestamp') || undefined,
        authType: params.get('authType') || params.get('authtype') || undefined,
        random: params.get('random'),
    };
}

/** `{deviceName}&{productKey}`, or undefined. */
export function parseUsername(username: string | undefined): { deviceName: string; productKey: string } | undefined {
    if (!username) return undefined;
    const at = username.lastIndexOf('&');
    if (at <= 0 || at === username.length - 1) return undefined;
    return { deviceName: username.slice(0, at), productKey: username.slice(at + 1) };
}

/** The signed content: each present parameter as name+value, names sorted (clientId, deviceName, productKey, timestamp). */
export function signContent(p: {
    clientId: string;
    deviceName: string;
    productKey: string;
    timestamp?: string;
}): string {
    return (
        `clientId${p.clientId}deviceName${p.deviceName}productKey${p.productKey}` +
        (p.timestamp !== undefined ? `timestamp${p.timestamp}` : '')
    );
}

export function sign(method: SignMethod, secret: string, content: string): string {
    return createHmac(ALGORITHMS[method], secret).update(content).digest('hex');
}

/** Constant-time comparison of two strings (case-insensitive for hex signatures when `hex`). */
export function sameSecret(given: string, expected: string, hex = false): boolean {
    const a = Buffer.from(hex ? given.toLowerCase() : given);
    const b = Buffer.from(hex ? expected.toLowerCase() : expected);
    return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the password proves the device's secret under the clientId's scheme. */
export function passwordValid(
    clientId: string,
    deviceName: string,
    productKey: string,
    secret: string,
    password: string,
): boolean {
    const parsed = parseClientId(clientId);
    if (parsed === 'bad-signmethod') return false;
    // No clientId scheme, or Alibaba's device-token sign-in (免预注册, authType=connwl): the password is the secret itself.
    if (!parsed || parsed.authType === 'connwl') return sameSecret(password, secret);
    const content = signContent({ clientId: parsed.id, deviceName, productKey, timestamp: parsed.timestamp });
    return sameSecret(password, sign(parsed.signMethod, secret, content), true);
}

/** What a device SDK computes: the Alibaba MQTT sign-in triple (used by tests, the simulator and the docs). */
export function alibabaCredentials(
    device: { productKey: string; deviceName: string; secret: string },
    options: { id?: string; signMethod?: SignMethod; timestamp?: number | null; securemode?: 2 | 3 } = {},
) {
    const id = options.id ?? `${device.productKey}.${device.deviceName}`;
    const signMethod = options.signMethod ?? 'hmacsha256';
    const timestamp = options.timestamp === null ? undefined : String(options.timestamp ?? Date.now());
    const extra = timestamp !== undefined ? `,timestamp=${timestamp}` : '';
    return {
        clientId: `${id}|securemode=${options.securemode ?? 3},signmethod=${signMethod}${extra}|`,
        username: `${device.deviceName}&${device.productKey}`,
        password: sign(
            signMethod,
            device.secret,
            signContent({ clientId: id, deviceName: device.deviceName, productKey: device.productKey, timestamp }),
        ),
    };
}
