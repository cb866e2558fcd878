import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deviceGroups, devices, products } from '../db/schema';
import { productScopeSql } from '../domain/products';
import { currentScope, inScope } from './scope';

/**
 * A scoped user (not an administrator) may name only records of their projects. The lists filter themselves
 * (scope.ts); this is the same rule for a call that names one record in its query (a detail, a chart, a device's
 * telemetry): `deviceId`, `projectId`, `projectCode`, `productId`, `productKey` or `groupId` of a record outside the
 * user's projects is answered 404 with the words of a record that does not exist, once here for every path. A value that is malformed or names nothing is
 * left to the route (its own 400 or 404).
 */
type Check = (db: Db, value: string) => Promise<boolean>;

const id = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : undefined);

async function productVisible(db: Db, where: ReturnType<typeof eq>): Promise<boolean> {
    const [row] = await db
        .select({ visible: sql<boolean>`coalesce(${productScopeSql() ?? sql`true`}, false)` })
        .from(products)
        .where(where);
    return !row || row.visible;
}

const CHECKS: Record<string, Check> = {
    projectId: async (_db, value) => id(value) === undefined || inScope(id(value)),
    projectCode: async (_db, value) => !value || !!currentScope()?.projectCodes.includes(value),
    deviceId: async (db, value) => {
        const n = id(value);
        if (n === undefined) return true;
        const [row] = await db.select({ projectId: devices.projectId }).from(devices).where(eq(devices.id, n));
        return !row || inScope(row.projectId);
    },
    productId: async (db, value) => {
        const n = id(value);
        return n === undefined || productVisible(db, eq(products.id, n));
    },
    productKey: async (db, value) => !value || productVisible(db, eq(products.productKey, value)),
    groupId: async (db, value) => {
        const n = id(value);
        if (n === undefined) return true;
        const [row] = await db
            .select({ projectCode: deviceGroups.projectCode })
            .from(deviceGroups)
            .where(eq(deviceGroups.id, n));
        return !row || !!currentScope()?.projectCodes.includes(row.projectCode);
    },
};
CHECKS.devicesId = CHECKS.deviceId;

/** What the answer says: the same as for a record that does not exist, so a scope does not tell what is outside it. */
const NOT_FOUND: Record<string, string> = {
    projectId: '项目不存在',
    projectCode: '项目不存在',
    deviceId: '设备不存在',
    devicesId: '设备不存在',
    productId: '产品不存在',
    productKey: '产品不存在',
    groupId: '分组不存在',
};

/** The not-found message for the first query parameter naming a record outside the current scope; undefined if none. */
export async function referenceOutOfScope(db: Db, query: URLSearchParams): Promise<string | undefined> {
    if (!currentScope()) return undefined;
    for (const [name, check] of Object.entries(CHECKS)) {
        for (const value of query.getAll(name)) if (!(await check(db, value))) return NOT_FOUND[name];
    }
    return undefined;
}
