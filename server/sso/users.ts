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

/**
 * The first start creates `admin` with ADMIN_PASSWORD or a random password. Later starts leave the user
 * alone, except that a set ADMIN_PASSWORD which no longer matches replaces the stored one: that is how an
 * operator who lost the printed password gets back in.
 */
export async function ensureAdmin(db: Db, adminPassword: string | undefined): Promise<AdminResult> {
    const [existing] = await db.select().from(users).where(eq(users.username, ADMIN_USERNAME)).limit(1);
    if (existing) {
        if (adminPassword && !(await verifyPassword(adminPassword, existing.passwordHash, existing.passwordSalt))) {
            const { hash, salt } = await hashPassword(adminPassword);
            await db.update(users).set({ passwordHash: hash, passwordSalt: salt }).where(eq(users.id, existing.id));
        }
        return { created: false };
    }
    const password = adminPassword ?? randomPassword(16);
    const { hash, salt } = await hashPassword(password);
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
    return { created: true, generatedPassword: adminPassword ? undefined : password };
}
