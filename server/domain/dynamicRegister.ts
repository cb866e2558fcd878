import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { devices, products } from '../db/schema';
import { DEVICE_NAME, DEVICE_NAME_MAX, DEVICE_NAME_MIN } from '../../schemas/device';
import { sameSecret, sign, type SignMethod } from '../mqtt/signIn';
import { insertDevices } from './deviceWrite';

/**
 * Dynamic registration (一型一密, docs/device-access.md "动态注册"): a device holding its product's ProductSecret fetches
 * its DeviceSecret once, over HTTPS (POST /auth/register/device), over MQTT (authType=register / regnwl), or through its
 * gateway (thing/sub/register). Every refusal carries Alibaba's code, and a refused request changes nothing.
 */

/** Alibaba's codes of these refusals (docs/device-access.md lists them with their source). */
export const ALINK_CODE = {
    /** request parameter error */
    parameter: 460,
    /** request auth error: the signature does not verify */
    auth: 401,
    /** too many requests (Alibaba's throttling code) */
    throttled: 429,
    /** device not found */
    deviceNotFound: 6100,
    /** the device is disabled */
    disabled: 6204,
    /** product not found */
    productNotFound: 6250,
    /** devicename not meet specs */
    badName: 6280,
    /** the product does not allow it (Alibaba documents no code for a switched-off registration: this one is ours) */
    notAllowed: 6288,
    /** device is already active: its DeviceSecret was handed out before, or it has connected */
    alreadyActive: 6289,
    /** topo relation not exist */
    notChild: 6401,
    /** topo relation cannot add by self */
    self: 6402,
} as const;

export class Refusal extends Error {
    constructor(
        readonly code: number,
        message: string,
    ) {
        super(message);
        this.name = 'Refusal';
    }
}

export const refuse = (code: number, message: string) => new Refusal(code, message);

/** Alibaba's spellings of a signing method (hmacSha1, HmacMD5, hmac_md5, hmacsha256): ours, or undefined. */
export function signMethodOf(raw: string | undefined, fallback: SignMethod = 'hmacsha1'): SignMethod | undefined {
    if (!raw) return fallback;
    const m = raw.toLowerCase().replaceAll('_', '');
    return m === 'hmacmd5' || m === 'hmacsha1' || m === 'hmacsha256' ? m : undefined;
}

/** A deviceName of the platform's rule (4~32 of letters, digits and - _ @ . :). */
export function validDeviceName(name: string): boolean {
    return name.length >= DEVICE_NAME_MIN && name.length <= DEVICE_NAME_MAX && DEVICE_NAME.test(name);
}

export interface RegisterProduct {
    id: number;
    productKey: string;
    productName: string;
    productSecret: string;
    dynamicRegister: boolean;
    noPreRegister: boolean;
    nodeType: number;
    gatewayType: number;
}

export async function registerProduct(db: Db | Tx, productKey: string): Promise<RegisterProduct | undefined> {
    const [row] = await db
        .select({
            id: products.id,
            productKey: products.productKey,
            productName: products.productName,
            productSecret: products.productSecret,
            dynamicRegister: products.dynamicRegister,
            noPreRegister: products.noPreRegister,
            nodeType: products.nodeType,
            gatewayType: products.gatewayType,
        })
        .from(products)
        .where(eq(products.productKey, productKey));
    return row;
}

/** A product whose devices reach the platform through a gateway (直连设备 answering 是否接入网关: 是). */
export const isSubDeviceProduct = (p: Pick<RegisterProduct, 'nodeType' | 'gatewayType'>) =>
    p.nodeType === 0 && p.gatewayType === 1;

/**
 * Registrations per product and minute, in this process (a token bucket: the minute's allowance may come at once,
 * then at its pace). Only requests whose signature verified count: whoever lacks the ProductSecret cannot use up a
 * product's allowance, and whoever has it cannot mint secrets faster than this.
 */
export function createRegisterLimiter(perMinute: number, now: () => number = Date.now) {
    const buckets = new Map<number, { tokens: number; at: number }>();
    let rate = perMinute;
    return {
        set perMinute(n: number) {
            if (n === rate) return;
            rate = n;
            buckets.clear();
        },
        get perMinute() {
            return rate;
        },
        /** Takes one registration of the product; false when its allowance is used up. */
        take(productId: number): boolean {
            const t = now();
            const b = buckets.get(productId) ?? { tokens: rate, at: t };
            b.tokens = Math.min(rate, b.tokens + ((t - b.at) / 60_000) * rate);
            b.at = t;
            buckets.set(productId, b);
            if (b.tokens < 1) return false;
            b.tokens -= 1;
            return true;
        },
    };
}

/** The process's limiter, shared by the HTTPS endpoint, the MQTT sign-in and gateways (DYNAMIC_REGISTER_PER_MINUTE). */
export const registerLimiter = createRegisterLimiter(30);

export function takeRegistration(product: RegisterProduct): void {
    if (!registerLimiter.take(product.id)) {
        throw refuse(ALINK_CODE.throttled, `产品 ${product.productKey} 的动态注册过于频繁，请稍后再试`);
    }
}

export interface RegisterRequest {
    productKey: string;
    deviceName: string;
    random: string;
    signMethod?: string;
    sign: string;
}

/** hex HMAC(ProductSecret, `deviceName{dn}productKey{pk}random{random}`), Alibaba's registration signature. */
export function registerSignature(
    method: SignMethod,
    productSecret: string,
    r: Pick<RegisterRequest, 'productKey' | 'deviceName' | 'random'>,
): string {
    return sign(method, productSecret, `deviceName${r.deviceName}productKey${r.productKey}random${r.random}`);
}

export interface IssuedSecret {
    deviceId: number;
    productKey: string;
    deviceName: string;
    deviceSecret: string;
    clientId: string;
    gwId: number | null;
}

/**
 * Hands out the device's DeviceSecret, once: a device already given it, or one that has connected, is refused
 * (6289). `create`: a device the product does not have is created (免预注册); otherwise it is refused (6100).
 * Runs in the caller's transaction, the device row locked, so two registrations of one device cannot both succeed.
 */
export async function issueSecret(
    tx: Tx,
    product: RegisterProduct,
    deviceName: string,
    create: boolean,
): Promise<IssuedSecret> {
    const find = () =>
        tx
            .select({
                id: devices.id,
                secret: devices.secret,
                clientId: devices.clientId,
                enabled: devices.enabled,
                status: devices.status,
                registeredAt: devices.registeredAt,
                gwId: devices.gwId,
            })
            .from(devices)
            .where(and(eq(devices.productId, product.id), eq(devices.deviceName, deviceName)))
            .for('update');
    let [row] = await find();
    if (!row) {
        if (!create)
            throw refuse(ALINK_CODE.deviceNotFound, `设备 ${deviceName} 不存在（产品未开启免预注册，须先添加设备）`);
        if (!validDeviceName(deviceName)) {
            throw refuse(ALINK_CODE.badName, '设备名称须为4~32个字符，支持英文字母、数字和特殊字符 - _ @ . :');
        }
        await insertDevices(tx, product, [{ deviceName }]);
        [row] = await find();
    }
    if (!row.enabled) throw refuse(ALINK_CODE.disabled, `设备 ${deviceName} 已禁用`);
    if (row.registeredAt !== null || row.status !== 'INACTIVE') {
        throw refuse(ALINK_CODE.alreadyActive, `设备 ${deviceName} 已激活，不能再次动态注册`);
    }
    await tx
        .update(devices)
        .set({ registeredAt: sql`now()` })
        .where(eq(devices.id, row.id));
    return {
        deviceId: Number(row.id),
        productKey: product.productKey,
        deviceName,
        deviceSecret: row.secret,
        clientId: row.clientId,
        gwId: row.gwId === null ? null : Number(row.gwId),
    };
}

/**
 * How a directly connected device registers: `https` (the device must be on the platform, as Alibaba's HTTPS is),
 * `register` (MQTT authType=register: the device on the platform, or created while 免预注册 is on), `regnwl` (MQTT
 * authType=regnwl: 免预注册 must be on; the device is created if the platform lacks it).
 */
export type DirectMode = 'https' | 'register' | 'regnwl';

/**
 * A directly connected device's registration, checked in Alibaba's order: parameters (460), product (6250), signature
 * (401), the product's allowance (429), its switches (6288), then the device (6100, 6204, 6289).
 */
export async function registerDirect(db: Db, r: RegisterRequest, mode: DirectMode): Promise<IssuedSecret> {
    if (!r.productKey || !r.deviceName || !r.random || !r.sign) {
        throw refuse(ALINK_CODE.parameter, '缺少参数：productKey、deviceName、random 和 sign 均为必填');
    }
    const method = signMethodOf(r.signMethod);
    if (!method) throw refuse(ALINK_CODE.parameter, 'signMethod 只能是 hmacmd5、hmacsha1 或 hmacsha256');
    const product = await registerProduct(db, r.productKey);
    if (!product) throw refuse(ALINK_CODE.productNotFound, `产品 ${r.productKey} 不存在`);
    if (!sameSecret(r.sign, registerSignature(method, product.productSecret, r), true)) {
        throw refuse(ALINK_CODE.auth, '签名校验失败');
    }
    takeRegistration(product);
    if (!product.dynamicRegister) throw refuse(ALINK_CODE.notAllowed, `产品 ${product.productName} 未开启动态注册`);
    if (isSubDeviceProduct(product)) {
        throw refuse(
            ALINK_CODE.parameter,
            `产品 ${product.productName} 的设备经网关接入，请由网关动态注册（thing/sub/register）`,
        );
    }
    if (mode === 'regnwl' && !product.noPreRegister) {
        throw refuse(ALINK_CODE.notAllowed, `产品 ${product.productName} 未开启免预注册`);
    }
    const create = mode !== 'https' && product.noPreRegister;
    return db.transaction((tx) => issueSecret(tx, product, r.deviceName, create));
}
