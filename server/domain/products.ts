import { randomInt } from 'node:crypto';
import { and, desc, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import { networkName } from '../catalog';
import type { Db, Tx } from '../db/client';
import { categories, devices, productCounts, products, projects } from '../db/schema';
import { notFound } from '../http/errors';
import { formatTime } from '../http/time';
import { tableMemo } from '../db/tableMemo';
import { currentScope } from '../rights/scope';

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 11 letters and digits from the CSPRNG, as the platform's productKey. */
export function newProductKey(): string {
    let key = '';
    for (let i = 0; i < 11; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
    return key;
}

const productColumns = {
    productId: products.id,
    productName: products.productName,
    productKey: products.productKey,
    nodeType: products.nodeType,
    gatewayType: products.gatewayType,
    categoryId: products.categoryId,
    categoryName: categories.name,
    networkType: products.networkType,
    dataType: products.dataType,
    projectCode: products.projectCode,
    projectName: projects.name,
    remark: products.remark,
    createTime: products.createTime,
    dynamicRegister: products.dynamicRegister,
    noPreRegister: products.noPreRegister,
};

type ProductRow = {
    [K in keyof typeof productColumns]: (typeof productColumns)[K]['_']['data'] | null;
};

function toProduct(row: ProductRow, timeZone: string) {
    return {
        ...row,
        networkName: networkName(Number(row.networkType)),
        createTime: formatTime(row.createTime, timeZone),
    };
}

export type Product = ReturnType<typeof toProduct>;

function selectProducts(db: Db | Tx) {
    return db
        .select(productColumns)
        .from(products)
        .leftJoin(categories, eq(categories.id, products.categoryId))
        .leftJoin(projects, eq(projects.code, products.projectCode));
}

/**
 * The products a scoped user sees: those of their projects, and those their projects' devices are of (so the device
 * list's product filter offers them). Undefined for an administrator (server/rights/scope.ts).
 */
export function productScopeSql(): SQL | undefined {
    const scope = currentScope();
    if (!scope) return undefined;
    if (scope.projectIds.length === 0) return sql`false`;
    return or(
        scope.projectCodes.length ? inArray(products.projectCode, scope.projectCodes) : undefined,
        sql`exists (select 1 from ${devices} where ${devices.productId} = ${products.id} and ${inArray(devices.projectId, scope.projectIds)})`,
    );
}

export async function listProducts(
    db: Db,
    timeZone: string,
    opts: { productName?: string; limit: number; offset: number },
): Promise<{ records: Product[]; total: number }> {
    // A literal, case-insensitive substring: no LIKE wildcards to escape, and on PGlite strpos over the stored
    // lowercase name is several times cheaper than ILIKE. No index serves a substring search (no pg_trgm here).
    const where: SQL | undefined = and(
        opts.productName ? sql`strpos(${products.productNameLower}, lower(${opts.productName})) > 0` : undefined,
        productScopeSql(),
    );
    // The page is found on products alone, so it walks the create_time index and stops after `limit` rows;
    // joining first would make the planner join and sort every product.
    const page = await db
        .select({ id: products.id })
        .from(products)
        .where(where)
        .orderBy(desc(products.createTime), desc(products.id))
        .limit(opts.limit)
        .offset(opts.offset);
    const rows = page.length
        ? await selectProducts(db).where(
              inArray(
                  products.id,
                  page.map((p) => p.id),
              ),
          )
        : [];
    const byId = new Map(rows.map((r) => [r.productId, r]));
    const records = page.map((p) => toProduct(byId.get(p.id)!, timeZone));
    return { records, total: await countProducts(db, where) };
}

async function countProducts(db: Db, where: SQL | undefined): Promise<number> {
    if (!where) {
        const [row] = await db
            .select({ total: productCounts.total })
            .from(productCounts)
            .where(eq(productCounts.id, 1));
        if (row) return Number(row.total);
    }
    const [{ total }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(products)
        .where(where);
    return Number(total);
}

/** Asked by every device detail: answered from memory while its tables are not written (tableMemo). */
const productOf = tableMemo(async (db: Db | Tx, key: `${number} ${string}`) => {
    const productId = Number(key.slice(0, key.indexOf(' ')));
    const [row] = await selectProducts(db).where(eq(products.id, productId)).limit(1);
    return row ? toProduct(row, key.slice(key.indexOf(' ') + 1)) : undefined;
});

export function findProduct(db: Db | Tx, timeZone: string, productId: number): Promise<Product | undefined> {
    return productOf(db, `${productId} ${timeZone}`);
}

export async function getProduct(db: Db | Tx, timeZone: string, productId: number): Promise<Product> {
    const product = await findProduct(db, timeZone, productId);
    if (!product) throw notFound('产品不存在');
    return product;
}

export async function productNameTaken(db: Db | Tx, productName: string, exceptId?: number): Promise<boolean> {
    const [row] = await db
        .select({ id: products.id })
        .from(products)
        .where(
            exceptId === undefined
                ? eq(products.productName, productName)
                : and(eq(products.productName, productName), ne(products.id, exceptId)),
        )
        .limit(1);
    return row !== undefined;
}

export interface CategoryNode {
    id: number;
    name: string;
    children?: CategoryNode[];
}

export async function categoryTree(db: Db): Promise<CategoryNode[]> {
    const rows = await db.select().from(categories).orderBy(categories.sort, categories.id);
    const nodes = new Map<number, CategoryNode>(rows.map((r) => [r.id, { id: r.id, name: r.name }]));
    const roots: CategoryNode[] = [];
    for (const r of rows) {
        const node = nodes.get(r.id)!;
        const parent = r.parentId === null ? undefined : nodes.get(r.parentId);
        if (parent) (parent.children ??= []).push(node);
        else roots.push(node);
    }
    return roots;
}
