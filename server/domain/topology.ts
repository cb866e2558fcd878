import { randomInt } from 'node:crypto';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { devices, foundDevices, products } from '../db/schema';
import { badRequest, notFound } from '../http/errors';
import { sameSecret, sign } from '../mqtt/signIn';
import { insertDevices } from './deviceWrite';
import { gatewayOf, SUB_DEVICE_MESSAGES } from './subDevices';
import {
    ALINK_CODE,
    isSubDeviceProduct,
    issueSecret,
    refuse,
    registerProduct,
    signMethodOf,
    takeRegistration,
    validDeviceName,
    type RegisterProduct,
} from './dynamicRegister';

/**
 * A gateway's own topology requests (Alibaba's Alink, docs/device-access.md "网关拓扑"): add sub-devices proving each
 * one's DeviceSecret, delete them, list them, report sub-devices it found, register sub-devices (their DeviceSecret
 * once). Each request is all or nothing: the first refusal (Alibaba's code) leaves everything as it was.
 */

/** Sub-devices one request may name (Alibaba: at most 30 per topo/add and topo/delete). */
export const TOPO_MAX = 30;
/** Sub-devices one found report may name, and found sub-devices kept per gateway. */
export const FOUND_MAX = 100;
export const FOUND_KEPT = 1_000;

export interface Gateway {
    deviceId: number;
    productKey: string;
    deviceName: string;
}

export interface SubName {
    productKey: string;
    deviceName: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** params as a list of objects, at most `max` (460 otherwise). */
export function paramList(params: unknown, max: number): Array<Record<string, unknown>> {
    const list = Array.isArray(params) ? params : params && typeof params === 'object' ? [params] : [];
    if (list.length === 0) throw refuse(ALINK_CODE.parameter, 'params 应为子设备列表');
    if (list.length > max) throw refuse(ALINK_CODE.parameter, `一次最多${max}个子设备`);
    if (list.some((x) => !x || typeof x !== 'object' || Array.isArray(x))) {
        throw refuse(ALINK_CODE.parameter, 'params 的每一项应为对象');
    }
    return list as Array<Record<string, unknown>>;
}

function namesOf(list: Array<Record<string, unknown>>): SubName[] {
    return list.map((x) => {
        const name = { productKey: str(x.productKey), deviceName: str(x.deviceName) };
        if (!name.productKey || !name.deviceName) {
            throw refuse(ALINK_CODE.parameter, '每个子设备须有 productKey 和 deviceName');
        }
        return name;
    });
}

interface SubRow {
    id: number;
    productId: number;
    productKey: string;
    deviceName: string;
    secret: string;
    enabled: boolean;
    gwId: number | null;
    nodeType: number;
    gatewayType: number;
}

/** The named devices, locked for the transaction, keyed `pk/dn`. */
async function lockSubs(tx: Tx, names: SubName[]): Promise<Map<string, SubRow>> {
    if (names.length === 0) return new Map();
    const rows = await tx
        .select({
            id: devices.id,
            productId: devices.productId,
            productKey: products.productKey,
            deviceName: devices.deviceName,
            secret: devices.secret,
            enabled: devices.enabled,
            gwId: devices.gwId,
            nodeType: products.nodeType,
            gatewayType: products.gatewayType,
        })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(
            sql`(${products.productKey}, ${devices.deviceName}) IN (${sql.join(
                names.map((n) => sql`(${n.productKey}, ${n.deviceName})`),
                sql`, `,
            )})`,
        )
        .for('update', { of: devices });
    return new Map(
        rows.map((r) => [
            `${r.productKey}/${r.deviceName}`,
            { ...r, id: Number(r.id), gwId: r.gwId === null ? null : Number(r.gwId) },
        ]),
    );
}

async function productKnown(tx: Tx, productKey: string): Promise<boolean> {
    const [row] = await tx.select({ id: products.id }).from(products).where(eq(products.productKey, productKey));
    return !!row;
}

/** The device of the name, or the refusal: unknown product (6250), unknown device (6100). */
async function existing(tx: Tx, subs: Map<string, SubRow>, n: SubName): Promise<SubRow> {
    const row = subs.get(`${n.productKey}/${n.deviceName}`);
    if (row) return row;
    if (!(await productKnown(tx, n.productKey)))
        throw refuse(ALINK_CODE.productNotFound, `产品 ${n.productKey} 不存在`);
    throw refuse(ALINK_CODE.deviceNotFound, `子设备 ${n.deviceName} 不存在`);
}

function notSelf(gateway: Gateway, n: SubName) {
    if (n.productKey === gateway.productKey && n.deviceName === gateway.deviceName) {
        throw refuse(ALINK_CODE.self, '网关不能把自己添加为自己的子设备');
    }
}

function mustBeSubProduct(row: Pick<SubRow, 'nodeType' | 'gatewayType' | 'productKey'>) {
    if (!isSubDeviceProduct(row)) {
        throw refuse(ALINK_CODE.parameter, `产品 ${row.productKey} 不是网关子设备产品（须为直连设备且接入网关）`);
    }
}

function notOtherGateway(gateway: Gateway, row: SubRow) {
    if (row.gwId !== null && row.gwId !== gateway.deviceId) {
        throw refuse(ALINK_CODE.parameter, `子设备 ${row.deviceName} 已挂载到其他网关`);
    }
}

/**
 * Alibaba's topo/add signature: the parameters but sign and signMethod (clientId, deviceName, productKey, timestamp:
 * those present), names sorted, each name then value, HMAC-signed with the sub-device's DeviceSecret.
 */
function signatureValid(item: Record<string, unknown>, n: SubName, secret: string): boolean {
    const method = signMethodOf(str(item.signMethod ?? item.signmethod));
    if (!method) return false;
    const v = item as Record<string, string | number | undefined>;
    const present = (key: string) =>
        typeof v[key] === 'string' || typeof v[key] === 'number' ? `${key}${v[key]}` : '';
    const content = `${present('clientId')}deviceName${n.deviceName}productKey${n.productKey}${present('timestamp')}`;
    return sameSecret(str(item.sign), sign(method, secret, content), true);
}

/**
 * thing/topo/add: binds each named sub-device to the gateway once its signature (with its own DeviceSecret) verifies.
 * Refused: unknown product (6250) or device (6100), the gateway itself (6402), a product not of sub-devices or a device
 * bound to another gateway (460), a wrong signature (401), a disabled device (6204).
 */
export async function addTopology(db: Db, gateway: Gateway, params: unknown): Promise<SubName[]> {
    const items = paramList(params, TOPO_MAX);
    const names = namesOf(items);
    return db.transaction(async (tx) => {
        const subs = await lockSubs(tx, names);
        for (const [i, n] of names.entries()) {
            notSelf(gateway, n);
            const row = await existing(tx, subs, n);
            mustBeSubProduct(row);
            if (!signatureValid(items[i], n, row.secret)) {
                throw refuse(ALINK_CODE.auth, `子设备 ${n.deviceName} 签名校验失败`);
            }
            if (!row.enabled) throw refuse(ALINK_CODE.disabled, `子设备 ${n.deviceName} 已禁用`);
            notOtherGateway(gateway, row);
        }
        const ids = [...subs.values()].map((r) => r.id);
        await tx.update(devices).set({ gwId: gateway.deviceId }).where(inArray(devices.id, ids));
        return names;
    });
}

/**
 * thing/topo/delete: unbinds each named sub-device from the gateway. Refused: unknown device (6100), one that is not
 * this gateway's sub-device (6401). Answers the devices unbound, with their ids (the broker takes them offline).
 */
export async function deleteTopology(
    db: Db,
    gateway: Gateway,
    params: unknown,
): Promise<Array<SubName & { deviceId: number }>> {
    const names = namesOf(paramList(params, TOPO_MAX));
    return db.transaction(async (tx) => {
        const subs = await lockSubs(tx, names);
        const rows = names.map((n) => {
            const row = subs.get(`${n.productKey}/${n.deviceName}`);
            if (!row) throw refuse(ALINK_CODE.deviceNotFound, `子设备 ${n.deviceName} 不存在`);
            if (row.gwId !== gateway.deviceId) throw refuse(ALINK_CODE.notChild, `${n.deviceName} 不是此网关的子设备`);
            return row;
        });
        await tx
            .update(devices)
            .set({ gwId: null })
            .where(
                inArray(
                    devices.id,
                    rows.map((r) => r.id),
                ),
            );
        return rows.map((r) => ({ productKey: r.productKey, deviceName: r.deviceName, deviceId: r.id }));
    });
}

/** thing/topo/get: the gateway's sub-devices. */
export async function topologyOf(db: Db | Tx, gatewayId: number): Promise<SubName[]> {
    return db
        .select({ productKey: products.productKey, deviceName: devices.deviceName })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(devices.gwId, gatewayId))
        .orderBy(devices.id);
}

/**
 * thing/list/found: stores the sub-devices the gateway reports, for the operator (found again: its time renewed).
 * Refused: unknown product (6250), a name outside the platform's rule (6280), more than the gateway may keep (460).
 */
export async function storeFound(db: Db, gateway: Gateway, params: unknown): Promise<void> {
    // A name reported twice in one message is one report (one upsert may not touch a row twice).
    const names = [
        ...new Map(namesOf(paramList(params, FOUND_MAX)).map((n) => [`${n.productKey}/${n.deviceName}`, n])).values(),
    ];
    await db.transaction(async (tx) => {
        for (const n of names) {
            if (!(await productKnown(tx, n.productKey))) {
                throw refuse(ALINK_CODE.productNotFound, `产品 ${n.productKey} 不存在`);
            }
            if (!validDeviceName(n.deviceName)) {
                throw refuse(
                    ALINK_CODE.badName,
                    `设备名称 ${n.deviceName} 不符合规则（4~32个字符，英文字母、数字和 - _ @ . :）`,
                );
            }
        }
        await tx
            .insert(foundDevices)
            .values(names.map((n) => ({ gwId: gateway.deviceId, ...n })))
            .onConflictDoUpdate({
                target: [foundDevices.gwId, foundDevices.productKey, foundDevices.deviceName],
                set: { foundTime: sql`now()` },
            });
        const [kept] = await tx
            .select({ n: count() })
            .from(foundDevices)
            .where(eq(foundDevices.gwId, gateway.deviceId));
        if (Number(kept.n) > FOUND_KEPT) {
            throw refuse(ALINK_CODE.parameter, `发现的子设备已达${FOUND_KEPT}个，请先在控制台处理`);
        }
    });
}

/**
 * thing/sub/register: each named sub-device's DeviceSecret, once, for products with 动态注册 on; a device the platform
 * lacks is created when the product also has 免预注册 on. Refused: unknown product (6250), not a sub-device product or
 * bound to another gateway (460), registration off (6288), unknown device (6100), disabled (6204), already active
 * (6289), the gateway itself (6402), too frequent (429).
 */
export async function registerSubDevices(
    db: Db,
    gateway: Gateway,
    params: unknown,
): Promise<Array<SubName & { iotId: string; deviceSecret: string }>> {
    const names = namesOf(paramList(params, TOPO_MAX));
    const productsByKey = new Map<string, RegisterProduct>();
    for (const n of names) {
        notSelf(gateway, n);
        const product = productsByKey.get(n.productKey) ?? (await registerProduct(db, n.productKey));
        if (!product) throw refuse(ALINK_CODE.productNotFound, `产品 ${n.productKey} 不存在`);
        mustBeSubProduct(product);
        if (!product.dynamicRegister) throw refuse(ALINK_CODE.notAllowed, `产品 ${product.productName} 未开启动态注册`);
        productsByKey.set(n.productKey, product);
    }
    for (const n of names) takeRegistration(productsByKey.get(n.productKey)!);
    return db.transaction(async (tx) => {
        const out: Array<SubName & { iotId: string; deviceSecret: string }> = [];
        for (const n of names) {
            const product = productsByKey.get(n.productKey)!;
            const issued = await issueSecret(tx, product, n.deviceName, product.noPreRegister);
            if (issued.gwId !== null && issued.gwId !== gateway.deviceId) {
                throw refuse(ALINK_CODE.parameter, `子设备 ${n.deviceName} 已挂载到其他网关`);
            }
            out.push({ ...n, iotId: String(issued.deviceId), deviceSecret: issued.deviceSecret });
        }
        return out;
    });
}

// ---------------------------------------------------------------- the console's view of found sub-devices

export interface FoundRecord {
    id: number;
    productKey: string;
    deviceName: string;
    productName: string | null;
    /** The platform's device of that name, if it has one. */
    deviceId: number | null;
    /** The gateway it is bound to now, if any. */
    boundGwId: number | null;
    foundTime: Date;
}

/** The gateway's found sub-devices, newest first, with the device each names (if the platform has it). */
export async function listFound(db: Db, gatewayId: number, limit: number, offset: number) {
    const where = eq(foundDevices.gwId, gatewayId);
    const rows = await db
        .select({
            id: foundDevices.id,
            productKey: foundDevices.productKey,
            deviceName: foundDevices.deviceName,
            productName: products.productName,
            deviceId: devices.id,
            boundGwId: devices.gwId,
            foundTime: foundDevices.foundTime,
        })
        .from(foundDevices)
        .leftJoin(products, eq(products.productKey, foundDevices.productKey))
        .leftJoin(devices, and(eq(devices.productId, products.id), eq(devices.deviceName, foundDevices.deviceName)))
        .where(where)
        .orderBy(desc(foundDevices.foundTime), desc(foundDevices.id))
        .limit(limit)
        .offset(offset);
    const [total] = await db.select({ n: count() }).from(foundDevices).where(where);
    return { rows, total: Number(total.n) };
}

/**
 * 添加 of a found sub-device: the platform's device of that name (created under its product when it has none) is bound
 * to the gateway and the report is dropped, all or nothing. Answers the device's id. The product must be one of directly connected
 * devices (a gateway is not a sub-device).
 */
export async function takeFound(db: Db, gatewayId: number, foundId: number): Promise<number> {
    const [found] = await db
        .select()
        .from(foundDevices)
        .where(and(eq(foundDevices.id, foundId), eq(foundDevices.gwId, gatewayId)));
    if (!found) throw notFound('该发现记录不存在或已处理');
    const product = await registerProduct(db, found.productKey);
    if (!product) throw badRequest(`产品 ${found.productKey} 不存在，请先创建产品`);
    if (product.nodeType !== 0) throw badRequest('网关设备不能作为子设备');
    return db.transaction(async (tx) => {
        await gatewayOf(tx, gatewayId, true);
        await insertDevices(tx, product, [{ deviceName: found.deviceName }]);
        const [row] = await tx
            .select({ id: devices.id, gwId: devices.gwId })
            .from(devices)
            .where(and(eq(devices.productId, product.id), eq(devices.deviceName, found.deviceName)))
            .for('update');
        if (row.gwId !== null && Number(row.gwId) !== gatewayId) throw badRequest(SUB_DEVICE_MESSAGES.otherGateway);
        await tx.update(devices).set({ gwId: gatewayId }).where(eq(devices.id, row.id));
        await tx.delete(foundDevices).where(eq(foundDevices.id, foundId));
        return Number(row.id);
    });
}

/** 忽略 of a found sub-device: the report is dropped. */
export async function dropFound(db: Db, gatewayId: number, foundId: number): Promise<void> {
    const gone = await db
        .delete(foundDevices)
        .where(and(eq(foundDevices.id, foundId), eq(foundDevices.gwId, gatewayId)))
        .returning({ id: foundDevices.id });
    if (gone.length === 0) throw notFound('该发现记录不存在或已处理');
}

/** Alibaba's status of a thing/topo/change notice: 0 created, 1 deleted, 2 enabled again, 8 disabled. */
export type TopoChange = 0 | 1 | 2 | 8;

/**
 * thing/topo/change: tells the gateway that the console bound (0) or unbound (1) its sub-devices. `publish` sends as
 * the platform wherever the gateway is connected; nothing is kept for a gateway that is not.
 */
export async function notifyTopoChange(
    db: Db,
    publish: ((topic: string, payload: string) => Promise<unknown>) | undefined,
    gatewayId: number,
    deviceIds: number[],
    status: TopoChange,
): Promise<void> {
    if (!publish || deviceIds.length === 0) return;
    const [gw] = await db
        .select({ productKey: products.productKey, deviceName: devices.deviceName })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(eq(devices.id, gatewayId));
    if (!gw) return;
    const subList = await db
        .select({ productKey: products.productKey, deviceName: devices.deviceName })
        .from(devices)
        .innerJoin(products, eq(products.id, devices.productId))
        .where(inArray(devices.id, deviceIds));
    const body = {
        id: String(randomInt(1, 2 ** 32)),
        version: '1.0',
        params: { status, subList },
        method: 'thing.topo.change',
    };
    await publish(`/sys/${gw.productKey}/${gw.deviceName}/thing/topo/change`, JSON.stringify(body));
}
