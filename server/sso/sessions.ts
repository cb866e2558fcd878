import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions, users } from '../db/schema';

export const SESSION_SECONDS = 24 * 60 * 60;

export interface SessionUser {
    id: number;
    username: string;
    displayName: string;
    userCode: string;
    mobile: string | null;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new session for the user; answers the token for the cookie (only its hash is stored). */
export async function createSession(db: Db, userId: number, now: Date): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await db.delete(sessions).where(lte(sessions.expiresAt, now));
    await db.insert(sessions).values({
        tokenHash: hashToken(token),
        userId,
        expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
    });
    return token;
}

export async function findSessionUser(db: Db, token: string, now: Date): Promise<SessionUser | undefined> {
    const [row] = await db
        .select({
            id: users.id,
            username: users.username,
            displayName: users.displayName,
            userCode: users.userCode,
            mobile: users.mobile,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.tokenHash, hashToken(token)), gt(sessions.expiresAt, now)))
        .limit(1);
    return row;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
    await db.delete(sessions).where(eq(sessions.tokenHash, hashToken(token)));
}
