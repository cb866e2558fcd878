import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { CONFIG_MESSAGES, configSaveSchema, contentProblem, utf8Size } from '../../schemas/remoteConfig';
import type { Db } from '../db/client';
import { remoteConfigVersions } from '../db/schema';
import { badRequest, isUniqueViolation, notFound } from '../http/errors';
import { validate } from '../http/input';
import { formatTime } from '../http/time';

/**
 * A product's configuration files (远程配置): each save is a new version numbered per product, the newest is current,
 * a restore saves an old version's content as a new one. Nothing is ever rewritten, so a device told a configId always
 * downloads the bytes it was told the size and SHA-256 of.
 */

export type VersionRow = typeof remoteConfigVersions.$inferSelect;

/** A version as the API answers it; `content` only where asked for (the list leaves it out). */
export function versionView(row: VersionRow, timeZone: string, withContent: boolean) {
    return {
        versionId: row.id,
        productId: row.productId,
        version: row.version,
        configId: row.configId,
        format: row.format,
        size: row.size,
        sign: row.sha256,
        signMethod: 'Sha256',
        remark: row.remark ?? '',
        restoredFrom: row.restoredFrom,
        createTime: formatTime(row.createTime, timeZone),
        ...(withContent ? { content: row.content } : {}),
    };
}

/** The product's current (newest) version, or undefined when it has none. */
export async function currentVersion(db: Db, productId: number): Promise<VersionRow | undefined> {
    const [row] = await db
        .select()
        .from(remoteConfigVersions)
        .where(eq(remoteConfigVersions.productId, productId))
        .orderBy(desc(remoteConfigVersions.version))
        .limit(1);
    return row;
}

/** One version of the product (404 when it is not the product's). */
export async function versionOf(db: Db, productId: number, versionId: number): Promise<VersionRow> {
    const [row] = await db
        .select()
        .from(remoteConfigVersions)
        .where(and(eq(remoteConfigVersions.productId, productId), eq(remoteConfigVersions.id, versionId)));
    if (!row) throw notFound(CONFIG_MESSAGES.versionNotFound);
    return row;
}

export async function versionByConfigId(db: Db, configId: string): Promise<VersionRow | undefined> {
    const [row] = await db.select().from(remoteConfigVersions).where(eq(remoteConfigVersions.configId, configId));
    return row;
}

/** A page of the product's versions, newest first, without their content. */
export async function listVersions(db: Db, productId: number, size: number, offset: number, timeZone: string) {
    const rows = await db
        .select()
        .from(remoteConfigVersions)
        .where(eq(remoteConfigVersions.productId, productId))
        .orderBy(desc(remoteConfigVersions.version))
        .limit(size)
        .offset(offset);
    const [n] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(remoteConfigVersions)
        .where(eq(remoteConfigVersions.productId, productId));
    return { records: rows.map((r) => versionView(r, timeZone, false)), total: Number(n.n) };
}

interface NewVersion {
    format: string;
    content: string;
    remark: string;
    restoredFrom?: number;
}

/** Inserts the next version of the product (a concurrent save taking the same number makes this one try again). */
async function insertVersion(db: Db, productId: number, v: NewVersion): Promise<VersionRow> {
    for (let attempt = 0; ; attempt++) {
        try {
            const [row] = await db
                .insert(remoteConfigVersions)
                .values({
                    productId,
                    version: sql`(SELECT coalesce(max(version), 0) + 1 FROM remote_config_versions
                        WHERE product_id = ${productId})`,
                    configId: randomBytes(16).toString('hex'),
                    format: v.format,
                    content: v.content,
                    size: utf8Size(v.content),
                    sha256: createHash('sha256').update(v.content, 'utf8').digest('hex'),
                    remark: v.remark || null,
                    restoredFrom: v.restoredFrom ?? null,
                })
                .returning();
            return row;
        } catch (err) {
            if (isUniqueViolation(err) && attempt < 5) continue;
            throw err;
        }
    }
}

/** 编辑: the body checked (format, ≤ 64 KB, JSON that parses, no NUL) and saved as the product's next version. */
export async function saveVersion(db: Db, productId: number, body: Record<string, unknown>): Promise<VersionRow> {
    // The content's own problems are said before yup's generic words (its type, a missing format).
    if (typeof body.content !== 'string' && body.content !== undefined) throw badRequest('配置内容必须是文本');
    const input = await validate(configSaveSchema, body);
    const why = contentProblem(input.format, input.content);
    if (why) throw badRequest(why);
    return insertVersion(db, productId, { format: input.format, content: input.content, remark: input.remark });
}

/** 恢复: an old version's content saved as the product's next version. */
export async function restoreVersion(db: Db, productId: number, versionId: number): Promise<VersionRow> {
    const old = await versionOf(db, productId, versionId);
    return insertVersion(db, productId, {
        format: old.format,
        content: old.content,
        remark: `恢复自版本 ${old.version}`,
        restoredFrom: old.version,
    });
}
