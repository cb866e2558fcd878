import { eq } from 'drizzle-orm';
import type { Connection } from 'rhea';
import type { Db } from '../db/client';
import { accessKeys, consumerGroups } from '../db/schema';
import type { SignedIn } from './links';
import { amqpPassword, parseAmqpUsername, passwordMatches, TIMESTAMP_SKEW_MS } from './signIn';

/**
 * SASL PLAIN sign-in of AMQP consumers: the password is checked against the AccessKey's secret at SASL; what else is
 * wrong (a disabled key, a stale timestamp, an unknown group or one of another project) is kept with the username and
 * told in the close of the connection once it opens, as Alibaba's server does.
 */

export interface SignInResult extends SignedIn {
    error?: { condition: string; description: string };
    at: number;
    /** When its check began (SASL's start, monotonic): a later check's result is never replaced by an earlier one's. */
    checkedFrom: number;
}

/** Sign-ins not followed by an open within this are forgotten. */
const SIGN_IN_KEPT_MS = 60_000;

type Group = typeof consumerGroups.$inferSelect;

/** Why a signed key may not consume from `group`, or undefined when it may. */
export function refusal(
    enabled: boolean,
    timestamp: number,
    group: Group | undefined,
    consumerGroupId: string,
    iotInstanceId: string | undefined,
    now = Date.now(),
): SignInResult['error'] {
    if (!enabled) return { condition: 'amqp:unauthorized-access', description: 'AccessKey 已禁用' };
    if (Math.abs(now - timestamp) > TIMESTAMP_SKEW_MS)
        return {
            condition: 'amqp:unauthorized-access',
            description: 'timestamp 与服务器时间相差超过 15 分钟，请校准时间后重新签名',
        };
    if (!group) return { condition: 'amqp:not-found', description: `消费者组 ${consumerGroupId} 不存在` };
    if (iotInstanceId && iotInstanceId !== group.projectCode)
        return {
            condition: 'amqp:unauthorized-access',
            description: `消费者组 ${group.id} 不属于项目 ${iotInstanceId}`,
        };
    return undefined;
}

/**
 * Why a sign-in that could not be checked (the database did not answer) is closed: `amqp:connection:forced`, which
 * AMQP clients (rhea, Qpid Proton, Alibaba's SDKs) treat as non-fatal and reconnect after. A SASL failure instead
 * would stop them for good: rhea never reconnects after a failed SASL outcome, whatever its code.
 */
export const CHECK_UNAVAILABLE = {
    condition: 'amqp:connection:forced',
    description: '平台暂时无法校验登录（数据库不可用），请稍后重新连接',
};

/**
 * Keeps a sign-in's result under its username unless a check that began later has already answered. The results are
 * kept by username (SASL's callback knows no connection), and a client reconnects with the same one: a check slowed
 * by a database blip that answers after the reconnection's own would otherwise replace its result, and the new
 * connection's link would find a refusal.
 */
export function keepSignIn(signIns: Map<string, SignInResult>, username: string, result: SignInResult): void {
    const kept = signIns.get(username);
    if (kept && kept.checkedFrom > result.checkedFrom) return;
    signIns.set(username, result);
}

/**
 * A sign-in the database could not check: it passes SASL, and its connection is closed as it opens with
 * CHECK_UNAVAILABLE, naming no group (no link is attached and nothing delivered).
 */
export function uncheckedSignIn(signIns: Map<string, SignInResult>, username: string, checkedFrom: number): true {
    keepSignIn(signIns, username, { clientId: '', authId: '', at: Date.now(), checkedFrom, error: CHECK_UNAVAILABLE });
    return true;
}

/** Checks a SASL PLAIN sign-in; true when the signature is right (the result, refusal or not, kept in `signIns`). */
export async function checkSignIn(
    db: Db,
    signIns: Map<string, SignInResult>,
    username: string,
    password: string,
    checkedFrom = performance.now(),
): Promise<boolean> {
    const parsed = parseAmqpUsername(username);
    if (!parsed) return false;
    const [key] = await db.select().from(accessKeys).where(eq(accessKeys.accessKey, parsed.authId));
    if (!key) return false;
    const expected = amqpPassword(key.accessSecret, key.accessKey, parsed.timestamp, parsed.signMethod);
    if (!passwordMatches(expected, password)) return false;
    const groupId = /^\d{1,9}$/.test(parsed.consumerGroupId) ? Number(parsed.consumerGroupId) : 0;
    const [group] = groupId ? await db.select().from(consumerGroups).where(eq(consumerGroups.id, groupId)) : [];
    const result: SignInResult = { clientId: parsed.clientId, authId: key.accessKey, at: Date.now(), checkedFrom };
    result.error = refusal(key.enabled, parsed.timestamp, group, parsed.consumerGroupId, parsed.iotInstanceId);
    if (!result.error && group) {
        result.groupId = group.id;
        void db
            .update(accessKeys)
            .set({ lastUsedTime: new Date() })
            .where(eq(accessKeys.id, key.id))
            .catch(() => undefined);
    }
    keepSignIn(signIns, username, result);
    for (const [name, r] of signIns) if (Date.now() - r.at > SIGN_IN_KEPT_MS) signIns.delete(name);
    return true;
}

/** What a connection signed in as (by its SASL username). */
export function signInOf(signIns: Map<string, SignInResult>, connection: Connection): SignInResult | undefined {
    const name = (connection as unknown as { sasl_transport?: { username?: string } }).sasl_transport?.username;
    return name ? signIns.get(name) : undefined;
}
