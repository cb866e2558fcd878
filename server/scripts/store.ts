import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { productScripts } from '../db/schema';

/** A product's data-parsing script as kept (migration 0037). */
export type ProductScriptRow = typeof productScripts.$inferSelect;

export async function scriptRow(db: Db, productId: number): Promise<ProductScriptRow | undefined> {
    const [row] = await db.select().from(productScripts).where(eq(productScripts.productId, productId));
    return row;
}

/**
 * The script the broker runs for the product (its published version), or undefined. Read per raw message: one point
 * query by primary key, so a 发布 takes effect on the next message on every process of a cluster.
 */
export async function publishedScript(db: Db, productId: number): Promise<string | undefined> {
    const [row] = await db
        .select({ published: productScripts.published })
        .from(productScripts)
        .where(eq(productScripts.productId, productId));
    return row?.published ?? undefined;
}

/** Saves the draft (the published version stays as it was). */
export async function saveDraft(db: Db, productId: number, draft: string): Promise<void> {
    await db
        .insert(productScripts)
        .values({ productId, draft })
        .onConflictDoUpdate({ target: productScripts.productId, set: { draft, draftTime: sql`now()` } });
}

/** Saves `script` as the draft and publishes it: the broker runs it from the next message on. */
export async function publishScript(db: Db, productId: number, script: string): Promise<void> {
    await db
        .insert(productScripts)
        .values({ productId, draft: script, published: script, publishedTime: sql`now()`, version: 1 })
        .onConflictDoUpdate({
            target: productScripts.productId,
            set: {
                draft: script,
                draftTime: sql`now()`,
                published: script,
                publishedTime: sql`now()`,
                version: sql`${productScripts.version} + 1`,
            },
        });
}
