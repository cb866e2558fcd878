import { expect } from 'vitest';
import type { TestServer } from '../../server/testing';
import { createDevice } from './devicesSupport';
import { call, type Answer } from './support';

export interface PropertyRow {
    functionId: number;
    functionName: string;
    identifier: string;
    dataTypeName: string;
    unit: string | null;
    timestamp: string | null;
    value: unknown;
    desired: unknown;
}

export interface HistoryPage {
    list: Array<{ timestamp: string; value: unknown }>;
    total: number;
}

export interface MessageRow {
    id: number;
    time: string;
    method: string;
    identifier: string | null;
    data: Record<string, unknown>;
}

export interface EventsPage {
    resultList: MessageRow[];
    currentPage: number;
    totalCount: number;
    totalPage: number;
}

/** The demo lamp product (智能路灯_L1), whose thing model has six properties, an event and a service. */
export async function lampProduct(s: TestServer) {
    const answer = await call(
        s,
        'GET',
        `/api/product?pageNumber=1&pageSize=1&productName=${encodeURIComponent('智能路灯')}`,
    );
    return (answer.body.data as { records: Array<{ productId: number; productKey: string }> }).records[0];
}

/** A fresh device of the lamp product: no reports yet. */
export async function freshLamp(s: TestServer) {
    return createDevice(s, (await lampProduct(s)).productKey);
}

export async function demoDevice(s: TestServer, deviceName: string) {
    const answer = await call(s, 'GET', `/api/device/list?pageNumber=1&pageSize=1&deviceName=${deviceName}`);
    const row = (answer.body.data as { records: Array<{ deviceId: number; deviceName: string; productKey: string }> })
        .records[0];
    expect(row?.deviceName).toBe(deviceName);
    return row;
}

/** The answer's data, after checking it succeeded (code 0). */
export function okData<T>(answer: Answer): T {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.code).toBe(0);
    return answer.body.data as T;
}

/** A refusal: HTTP status and the device family's failure envelope with the message. */
export function expectRefused(answer: Answer, status: number, msg: string) {
    expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { code: 1, msg } });
}

/** A query string from params (undefined left out). */
export function qs(params: Record<string, string | number | undefined>): string {
    return new URLSearchParams(
        Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    ).toString();
}
