import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ADMIN_ROLE_ID } from '../../schemas/rights';
import { users } from '../db/schema';
import { hashPassword, randomPassword, verifyPassword } from './passwords';

export const ADMIN_USERNAME = 'admin';

export interface AdminResult {
    /** The password to print: only when it was generated right now (the first start without ADMIN_PASSWORD). */
    generatedPassword?: string;
    created: boolean;
}

/** The admin's first password and its hash, started ahead of the database (a first start hashes while it opens). */
export interface AdminPassword {
    password: string;
    /** Generated here (no ADMIN_PASSWORD): printed once. */
    generated: boolean;
    hashed: Promise<{ hash: string; salt: string }>;
}

export function prepareAdminPassword(adminPassword: string | undefined): AdminPassword {
    const password = adminPassword ?? randomPassword(16);
    const hashed = hashPassword(password);
    hashed.catch(() => undefined); // awaited, and so reported, by ensureAdmin
    return { password, generated: !adminPassword, hashed };
}

/**
 * The first start creates `admin` with ADMIN_PASSWORD or a random password. Later starts leave the user
 * alone, except that a set ADMIN_PASSWORD which no longer matches replaces the stored one: that is how an
 * operator who lost the printed password gets back in. `prepared`: the first password, hashed ahead.
 */
export async function ensureAdmin(
    db: Db,
    adminPassword: string | undefined,
    prepared?: AdminPassword,
): Promise<AdminResult> {
    const [existing] = await db.select().from(users).where(eq(users.username, ADMIN_USERNAME)).limit(1);
    if (existing) {
        if (adminPassword && !(await verifyPassword(adminPassword, existing.passwordHash, existing.passwordSalt))) {
            const { hash, salt } = await hashPassword(adminPassword);
            await db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, existing.id));
        }
        return { created: false };
    }
    const { password, generated, hashed } = prepared ?? prepareAdminPassword(adminPassword);
    const { hash, salt } = await hashed;
    const inserted = await db
        .insert(users)
        .values({
            username: ADMIN_USERNAME,
            displayName: '管理员',
            userCode: 'U000001',
            mobile: '13800138000',
            roleId: ADMIN_ROLE_ID,
            passwordHash: hash,
            passwordSalt: salt,
        })
        .onConflictDoNothing()
        .returning({ id: users.id });
    // Another process (same PostgreSQL) may have created it first: then it printed its own password.
    if (inserted.length === 0) return { created: false };
    return { created: true, generatedPassword: generated ? password : undefined };
}
