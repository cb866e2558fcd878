import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lte, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { projects, projectUsers, roles, sessions, users } from '../db/schema';

export const SESSION_SECONDS = 24 * 60 * 60;

export interface SessionUser {
    id: number;
    username: string;
    displayName: string;
    userCode: string;
    mobile: string | null;
    roleId: number;
    roleName: string;
    /** Every menu, right and project. */
    admin: boolean;
    /** Granted rights, `*` patterns as stored (server/rights/check.ts hasRight). */
    rights: string[];
    /** Granted menu ids; null: every entry but 系统管理. */
    menus: string[] | null;
    /** The projects the user is staff of (an administrator sees every project whatever this says). */
    projectIds: number[];
    projectCodes: string[];
}

/** Where a session came from, kept for the security centre. */
export interface SessionOrigin {
    address?: string;
    userAgent?: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new session for the user; answers the token for the cookie (only its hash is stored). */
export async function createSession(db: Db, userId: number, now: Date, origin: SessionOrigin = {}): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await db.delete(sessions).where(lte(sessions.expiresAt, now));
    await db.insert(sessions).values({
        tokenHash: hashToken(token),
        userId,
        expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
        address: origin.address?.slice(0, 100) ?? null,
        userAgent: origin.userAgent?.slice(0, 300) ?? null,
    });
    return token;
}

/**
 * How long a session read from the database is trusted without reading it again (wall-clock ms). Every request
 * needs its session; reading it cost a query each (about a millisecond, on the one connection PGlite has). Logout
 * in this process forgets the session at once (deleteSession); a session ended by another process sharing the
 * database stays usable here at most this long. Expiry is checked on every use against the request's clock.
 */
export const SESSION_CACHE_MS = 15_000;
const SESSION_CACHE_SIZE = 10_000;

interface CachedSession {
    user: SessionUser;
    expiresAt: number;
    readAt: number;
}

interface SessionStore {
    cache: Map<string, CachedSession>;
    /** The session reads under way, by token hash: requests that come meanwhile take their answer. */
    reads: Map<string, Promise<CachedSession | undefined>>;
    /** Moved on by every forget: a read that started before it does not fill the cache. */
    generation: number;
}

const sessionStores = new WeakMap<Db, SessionStore>();

function storeOf(db: Db): SessionStore {
    let store = sessionStores.get(db);
    if (!store) {
        store = { cache: new Map(), reads: new Map(), generation: 0 };
        sessionStores.set(db, store);
    }
    return store;
}

async function readSession(db: Db, store: SessionStore, tokenHash: string, now: Date) {
    const generation = store.generation;
    const [row] = await db
        .select({
            id: users.id,
            username: users.username,
            displayName: users.displayName,
            userCode: users.userCode,
            mobile: users.mobile,
            roleId: users.roleId,
            roleName: roles.name,
            admin: roles.isAdmin,
            rights: roles.rights,
            menus: roles.menus,
            expiresAt: sessions.expiresAt,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .innerJoin(roles, eq(roles.id, users.roleId))
        .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now), eq(users.enabled, true)))
        .limit(1);
    if (!row) {
        // Unknown or expired tokens are not cached: a forged one must not fill the cache.
        store.cache.delete(tokenHash);
        return undefined;
    }
    const staff = await db
        .select({ id: projects.id, code: projects.code })
        .from(projectUsers)
        .innerJoin(projects, eq(projects.id, projectUsers.projectId))
        .where(eq(projectUsers.userId, row.id));
    const { expiresAt, ...rest } = row;
    const user: SessionUser = {
        ...rest,
        rights: Array.isArray(rest.rights) ? rest.rights : [],
        menus: Array.isArray(rest.menus) ? rest.menus : null,
        projectIds: staff.map((p) => p.id),
        projectCodes: staff.map((p) => p.code),
    };
    const entry = { user, expiresAt: expiresAt.getTime(), readAt: Date.now() };
    if (store.generation === generation) {
        const cache = store.cache;
        if (cache.size >= SESSION_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(tokenHash, entry);
    }
    return entry;
}

export async function findSessionUser(db: Db, token: string, now: Date): Promise<SessionUser | undefined> {
    const tokenHash = hashToken(token);
    const store = storeOf(db);
    const hit = store.cache.get(tokenHash);
    if (hit && Date.now() - hit.readAt < SESSION_CACHE_MS) {
        if (hit.expiresAt > now.getTime()) return hit.user;
        store.cache.delete(tokenHash);
        return undefined;
    }
    // One read per session at a time: a console's burst of calls (or, under load, every request of a busy session
    // when its cached copy ages out together) costs one read, not one each.
    let read = store.reads.get(tokenHash);
    if (!read) {
        const started = readSession(db, store, tokenHash, now).finally(() => {
            if (store.reads.get(tokenHash) === started) store.reads.delete(tokenHash);
        });
        store.reads.set(tokenHash, (read = started));
    }
    const entry = await read;
    return entry && entry.expiresAt > now.getTime() ? entry.user : undefined;
}

/** Forgets the cached sessions of a user, or every cached session (after revoking sessions in the database). */
export function forgetSessions(db: Db, userId?: number): void {
    const store = storeOf(db);
    store.generation++;
    // A read under way may be of one of these sessions: the next request reads it again.
    store.reads.clear();
    if (userId === undefined) store.cache.clear();
    else for (const [key, entry] of store.cache) if (entry.user.id === userId) store.cache.delete(key);
}

export async function deleteSession(db: Db, token: string): Promise<void> {
    const tokenHash = hashToken(token);
    const store = storeOf(db);
    store.generation++;
    store.reads.delete(tokenHash);
    store.cache.delete(tokenHash);
    await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

/** Ends every session of a user, except the one with `keepToken` (changing one's password keeps the caller's). */
export async function endUserSessions(db: Db, userId: number, keepToken?: string): Promise<number> {
    const keep = keepToken ? hashToken(keepToken) : undefined;
    const ended = await db
        .delete(sessions)
        .where(and(eq(sessions.userId, userId), keep ? ne(sessions.tokenHash, keep) : undefined))
        .returning({ id: sessions.id });
    forgetSessions(db, userId);
    return ended.length;
}

/** Ends one session by its id (the security centre's revoke); answers whose it was, or undefined. */
export async function revokeSession(db: Db, id: number): Promise<number | undefined> {
    const [row] = await db.delete(sessions).where(eq(sessions.id, id)).returning({ userId: sessions.userId });
    if (row) forgetSessions(db, row.userId);
    return row?.userId;
}

/** The caller's own session id, to mark it in the list. */
export function tokenHashOf(token: string): string {
    return hashToken(token);
}
