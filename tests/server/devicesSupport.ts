import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestServer } from '../../server/testing';
import { call, form, productForm, rowCounts, type Answer } from './support';

export interface DeviceRow {
    deviceId: number;
    deviceName: string;
    productId: number;
    productKey: string;
    productName: string;
    status: string;
    deviceStatus: boolean;
    remark: string | null;
    projectId: number | null;
    projectName: string | null;
    username: string;
    clientId: string;
    secret?: string;
    longitude: number | null;
    latitude: number | null;
    addr: string | null;
    lastTime: string | null;
    statusTime: string | null;
    subDeviceCount: number;
    gwid: number | null;
}

export interface ListPage {
    records: DeviceRow[];
    total: number;
    onlineCount: number;
}

export interface TestProduct {
    productId: number;
    productKey: string;
    productName: string;
}

let names = 0;
/** A fresh valid deviceName. */
export const deviceName = (prefix = 'dev') => `${prefix}_${Date.now().toString(36)}_${names++}`;

export async function createProduct(s: TestServer, overrides: Record<string, string | number> = {}) {
    const answer = await call(s, 'POST', '/api/product/save', form(productForm(overrides)));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as TestProduct;
}

export async function createDevice(s: TestServer, productKey: string, values: Record<string, string | number> = {}) {
    const answer = await call(s, 'POST', '/api/device/save', form({ productKey, deviceName: deviceName(), ...values }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as DeviceRow;
}

export async function listDevices(s: TestServer, query: string) {
    const answer = await call(s, 'GET', `/api/device/list?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as ListPage;
}

/** Repeated keys, as the console sends arrays (deviceId=1&deviceId=2). */
export function listForm(values: Record<string, Array<string | number> | string | number>): RequestInit {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(values))
        for (const item of Array.isArray(v) ? v : [v]) body.append(k, String(item));
    return { body };
}

export function upload(productKey: string | undefined, file?: File | string): RequestInit {
    const body = new FormData();
    if (productKey !== undefined) body.set('productKey', productKey);
    if (file !== undefined) body.set('file', file);
    return { body };
}

export const csvFile = (text: string, name = 'devices.csv', type = 'text/csv') => new File([text], name, { type });

/** device_counts as { 'productId/status': total }, zeros left out. */
export async function counters(s: TestServer): Promise<Record<string, number>> {
    const result = await s.db.execute(sql`SELECT product_id, status, total FROM device_counts WHERE total <> 0`);
    const rows = (result as unknown as { rows: Array<{ product_id: number; status: string; total: string | number }> })
        .rows;
    return Object.fromEntries(rows.map((r) => [`${r.product_id}/${r.status}`, Number(r.total)]));
}

/** The same, counted from the devices table. */
export async function realCounts(s: TestServer): Promise<Record<string, number>> {
    const result = await s.db.execute(
        sql`SELECT product_id, status, count(*)::int AS total FROM devices GROUP BY product_id, status`,
    );
    const rows = (result as unknown as { rows: Array<{ product_id: number; status: string; total: number }> }).rows;
    return Object.fromEntries(rows.map((r) => [`${r.product_id}/${r.status}`, Number(r.total)]));
}

/** Calls and expects a refusal in the device envelope with `message`, and no row or counter changed. */
export async function expectRefused(
    s: TestServer,
    method: string,
    target: string,
    init: RequestInit,
    message: string,
    status = 400,
): Promise<Answer> {
    const before = { rows: await rowCounts(s.db), counters: await counters(s) };
    const answer = await call(s, method, target, init);
    expect(answer.body, target).toEqual({ code: 1, msg: message });
    expect(answer.status).toBe(status);
    expect({ rows: await rowCounts(s.db), counters: await counters(s) }).toEqual(before);
    return answer;
}
