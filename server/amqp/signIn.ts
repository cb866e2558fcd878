import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Alibaba Cloud IoT's AMQP sign-in (server-side subscription), SASL PLAIN:
 * username `{clientId}|authMode=aksign,signMethod=hmacsha1,timestamp={ms},authId={accessKey},iotInstanceId=,consumerGroupId={id}|`
 * password base64(HMAC(accessSecret, `authId={accessKey}&timestamp={ms}`)) with hmacsha1 or hmacsha256.
 * iotInstanceId names the project (its code) here; empty means the consumer group's own project.
 */

export type SignMethod = 'hmacsha1' | 'hmacsha256';

export interface AmqpUsername {
    clientId: string;
    authMode: string;
    signMethod: SignMethod;
    timestamp: number;
    authId: string;
    iotInstanceId: string;
    consumerGroupId: string;
}

/** How far a sign-in's timestamp may be from the server's clock. */
export const TIMESTAMP_SKEW_MS = 15 * 60 * 1000;

export function parseAmqpUsername(username: string): AmqpUsername | undefined {
    const m = /^([^|]*)\|([^|]*)\|$/.exec(username);
    if (!m) return undefined;
    const params = new Map<string, string>();
    for (const part of m[2].split(',')) {
        const eq = part.indexOf('=');
        if (eq < 0) continue;
        params.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const signMethod = (params.get('signMethod') ?? '').toLowerCase();
    const timestamp = Number(params.get('timestamp'));
    const authId = params.get('authId') ?? '';
    const consumerGroupId = params.get('consumerGroupId') ?? '';
    const clientId = m[1].trim();
    if (signMethod !== 'hmacsha1' && signMethod !== 'hmacsha256') return undefined;
    if (!Number.isSafeInteger(timestamp) || !authId || !consumerGroupId || !clientId) return undefined;
    return {
        clientId,
        authMode: params.get('authMode') ?? '',
        signMethod,
        timestamp,
        authId,
        iotInstanceId: params.get('iotInstanceId') ?? '',
        consumerGroupId,
    };
}

export function amqpPassword(secret: string, accessKey: string, timestamp: number, method: SignMethod): string {
    const algorithm = method === 'hmacsha256' ? 'sha256' : 'sha1';
    return createHmac(algorithm, secret).update(`authId=${accessKey}&timestamp=${timestamp}`).digest('base64');
}

export function passwordMatches(expected: string, given: string): boolean {
    const a = Buffer.from(expected);
    const b = Buffer.from(given);
    return a.length === b.length && timingSafeEqual(a, b);
}

/** The username and password an Alibaba-style consumer sends (tests, bench, docs). */
export function amqpCredentials(opts: {
    clientId: string;
    accessKey: string;
    accessSecret: string;
    consumerGroupId: string | number;
    iotInstanceId?: string;
    signMethod?: SignMethod;
    timestamp?: number;
}) {
    const timestamp = opts.timestamp ?? Date.now();
    const signMethod = opts.signMethod ?? 'hmacsha1';
    return {
        username:
            `${opts.clientId}|authMode=aksign,signMethod=${signMethod},timestamp=${timestamp},authId=${opts.accessKey},` +
            `iotInstanceId=${opts.iotInstanceId ?? ''},consumerGroupId=${opts.consumerGroupId}|`,
        password: amqpPassword(opts.accessSecret, opts.accessKey, timestamp, signMethod),
    };
}
