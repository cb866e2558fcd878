import { HttpError } from 'ra-core';
import { readPath } from './envelope';
import { isObject, toRecord } from './request';
import type { ApiCall } from './types';
import type { Params, Row } from './state';

/** Rows of a list answer: the declared path, else the platform's usual places. */
export function readRows(body: unknown, read?: string): unknown[] {
    const value = read
        ? readPath(body, read)
        : [readPath(body, 'data.records'), readPath(body, 'data.list'), readPath(body, 'data')].find(Array.isArray);
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Error(`列表数据（${read ?? 'data.records'}）不是数组`);
    return value;
}

/** The answer's other figures beside its rows and total (count, onlineCount), for counters above a table. */
export function figuresOf(data: unknown): Record<string, unknown> | undefined {
    if (!isObject(data)) return undefined;
    const entries = Object.entries(data).filter(
        ([key, value]) => key !== 'total' && (typeof value === 'number' || typeof value === 'string'),
    );
    return entries.length ? Object.fromEntries(entries) : undefined;
}

export interface ListAnswer {
    data: Row[];
    total: number;
    meta?: Record<string, unknown>;
}

/** A page: its records, the declared total (else the row count), and any figures beside them. */
export function readList(body: unknown, call: ApiCall, idField: string): ListAnswer {
    const data = readMany(body, call, idField);
    const total = Number(readPath(body, call.total ?? 'data.total'));
    const result = { data, total: Number.isFinite(total) ? total : data.length };
    const figures = figuresOf(readPath(body, 'data'));
    return figures ? { ...result, meta: figures } : result;
}

export function readMany(body: unknown, call: ApiCall, idField: string): Row[] {
    return readRows(body, call.read).map((row) => toRecord(row, idField, call.transform));
}

const withId = (record: Row, id: unknown): Row => ({ ...record, id: record.id ?? id });

/** getOne's record; an answer without one is react-admin's "item doesn't exist". */
export function readOne(body: unknown, call: ApiCall, idField: string, id: unknown): Row {
    const row = readPath(body, call.read ?? 'data');
    if (!isObject(row)) throw new HttpError('ra.notification.item_doesnt_exist', 404, body);
    return withId(toRecord(row, idField, call.transform), id);
}

/** create's record: the sent data with the answer's record over it, or with the new id when that is all it says. */
export function readCreated(body: unknown, call: ApiCall, idField: string, sent: Row): Row {
    const answer = readPath(body, call.read ?? 'data');
    let row: Row = { ...sent };
    if (typeof answer === 'string' || typeof answer === 'number') row = { ...sent, [idField]: answer, id: answer };
    else if (isObject(answer)) row = { ...sent, ...answer };
    return toRecord(row, idField, call.transform);
}

/** update's record: previousData, then the sent data, then the answer's record when it has one. */
export function readUpdated(body: unknown, call: ApiCall, idField: string, params: Params): Row {
    const answer = readPath(body, call.read ?? 'data');
    const previous = (params.previousData ?? {}) as Row;
    const data = (params.data ?? {}) as Row;
    const row = { ...previous, ...data, ...(isObject(answer) ? answer : {}) };
    return withId(toRecord(row, idField, call.transform), params.id);
}

/** delete's record: the answer's record, else previousData, else only the id. */
export function readDeleted(body: unknown, call: ApiCall, idField: string, params: Params): Row {
    const answer = readPath(body, call.read ?? 'data');
    if (isObject(answer)) return withId(toRecord(answer, idField, call.transform), params.id);
    return (params.previousData as Row | undefined) ?? { id: params.id };
}

/** invoke's data: the `read` path (default data), each row (or the one record) through the call's transform. */
export function readInvoked(body: unknown, call: ApiCall): unknown {
    const data = readPath(body, call.read ?? 'data');
    if (call.transform && Array.isArray(data)) return data.map((r) => (isObject(r) ? call.transform!(r) : r));
    if (call.transform && isObject(data)) return call.transform(data);
    return data;
}
