import { describe, expect, it } from 'vitest';
import { HttpError } from 'ra-core';
import {
    createRequest,
    deleteManyRequest,
    deleteRequest,
    getManyRequest,
    getOneRequest,
    listRequest,
    paramsFor,
    progressOf,
    updateManyRequest,
    updateRequest,
    withPagingAndSort,
} from '../../dataProvider/verbRequests';
import {
    figuresOf,
    readCreated,
    readDeleted,
    readInvoked,
    readList,
    readOne,
    readRows,
    readUpdated,
} from '../../dataProvider/answers';
import type { ApiCall } from '../../dataProvider/types';

const signal = new AbortController().signal;

describe('request building per verb', () => {
    it('list: renamed filters, then 1-based paging, sort only when declared; input without the signal', () => {
        const call: ApiCall = { get: '/x', paging: ['pageNumber', 'pageSize'], filters: { q: 'productName' } };
        const params = { pagination: { page: 2, perPage: 10 }, sort: { field: 'id', order: 'ASC' }, signal };
        const request = listRequest(call, { q: '灯', nodeType: 0 }, params);
        expect(request.params).toEqual({ productName: '灯', nodeType: 0, pageNumber: 2, pageSize: 10 });
        expect(request.input).toEqual({ q: '灯', nodeType: 0, pagination: params.pagination, sort: params.sort });
        const sorted = withPagingAndSort({ get: '/x', sort: ['orderBy', 'order'] }, {}, params);
        expect(sorted).toEqual({ orderBy: 'id', order: 'ASC' });
    });

    it("list: a call's own params replace the renamed filter; paging is still added", () => {
        const call: ApiCall = { get: '/x', paging: ['page', 'size'], params: (i) => ({ name: i.q }) };
        const request = listRequest(call, { q: 'a' }, { pagination: { page: 1, perPage: 5 } });
        expect(request.params).toEqual({ name: 'a', page: 1, size: 5 });
    });

    it('getOne / getMany / deleteMany: the id field carries the id or ids; the signal travels beside', () => {
        expect(getOneRequest('productId', { id: 7, signal })).toEqual({
            defaults: { productId: 7 },
            input: { id: 7 },
            signal,
        });
        expect(getManyRequest('productId', { ids: [1, 2], signal }).defaults).toEqual({ productId: [1, 2] });
        expect(deleteManyRequest('deviceId', { ids: [3], signal })).toEqual({
            defaults: { deviceId: [3] },
            input: { ids: [3] },
        });
    });

    it('create: the form data without the copied id; the input holds the record', () => {
        const data = { id: 5, productId: 5, productName: 'a' };
        const request = createRequest('productId', { data });
        expect(request.defaults).toEqual({ productId: 5, productName: 'a' });
        expect(request.input).toMatchObject({ productName: 'a', data, record: data });
        expect(request.onProgress).toBeUndefined();
    });

    it('update: the sent data plus the id field; the input is previousData under data', () => {
        const request = updateRequest('productId', {
            id: 5,
            data: { id: 5, productName: 'b' },
            previousData: { id: 5, productName: 'a', nodeType: 0 },
        });
        expect(request.defaults).toEqual({ productName: 'b', productId: 5 });
        expect(request.input.record).toEqual({ id: 5, productName: 'b', nodeType: 0 });
    });

    it('updateMany: the data plus the ids; delete: the id, with previousData as the record', () => {
        expect(updateManyRequest('productId', { ids: [1, 2], data: { id: 1, status: 1 } }).defaults).toEqual({
            status: 1,
            productId: [1, 2],
        });
        const previousData = { id: 9, name: 'n' };
        const request = deleteRequest('deviceId', { id: 9, previousData });
        expect(request.defaults).toEqual({ deviceId: 9 });
        expect(request.input).toMatchObject({ name: 'n', record: previousData });
    });

    it("paramsFor: the call's params(input) when declared, else the verb's defaults", () => {
        const request = { defaults: { a: 1 }, input: { b: 2 } };
        expect(paramsFor({ get: '/x' }, request)).toEqual({ a: 1 });
        expect(paramsFor({ get: '/x', params: (i) => ({ c: i.b }) }, request)).toEqual({ c: 2 });
    });

    it('progressOf: only a function in meta.onProgress', () => {
        const onProgress = () => undefined;
        expect(progressOf({ meta: { onProgress } })).toBe(onProgress);
        expect(progressOf({ meta: { onProgress: 1 } })).toBeUndefined();
    });
});

describe('reading answers', () => {
    const call: ApiCall = { get: '/x' };

    it('rows: data.records, else data.list, else data as an array; a declared path that is no array throws', () => {
        expect(readRows({ data: { records: [1] } })).toEqual([1]);
        expect(readRows({ data: { list: [2] } })).toEqual([2]);
        expect(readRows({ data: [3] })).toEqual([3]);
        expect(readRows({ data: null })).toEqual([]);
        expect(() => readRows({ data: { rows: 1 } }, 'data.rows')).toThrow('不是数组');
    });

    it('list: records with id copied, total from data.total else the row count, other figures as meta', () => {
        const body = { data: { records: [{ productId: 1 }], total: 31, onlineCount: 4 } };
        expect(readList(body, call, 'productId')).toEqual({
            data: [{ productId: 1, id: 1 }],
            total: 31,
            meta: { onlineCount: 4 },
        });
        expect(readList({ data: [{ id: 1 }, { id: 2 }] }, call, 'id')).toEqual({
            data: [{ id: 1 }, { id: 2 }],
            total: 2,
        });
        expect(figuresOf({ total: 3, nested: {} })).toBeUndefined();
    });

    it("one: the record with react-admin's id; no record is item_doesnt_exist (404)", () => {
        expect(readOne({ data: { name: 'a' } }, call, 'productId', 7)).toEqual({ name: 'a', id: 7 });
        const error = (() => {
            try {
                readOne({ data: null }, call, 'id', 1);
            } catch (e) {
                return e;
            }
        })();
        expect(error).toBeInstanceOf(HttpError);
        expect((error as HttpError).status).toBe(404);
    });

    it('created: the sent data with the new id when the answer is only an id, else with the answer over it', () => {
        expect(readCreated({ data: 12 }, call, 'productId', { name: 'a' })).toEqual({
            name: 'a',
            productId: 12,
            id: 12,
        });
        expect(readCreated({ data: { id: 3, at: 't' } }, call, 'id', { name: 'a' })).toEqual({
            name: 'a',
            id: 3,
            at: 't',
        });
        expect(readCreated({ data: true }, call, 'id', { name: 'a' })).toEqual({ name: 'a' });
    });

    it('updated: previousData, then data, then the answer; deleted: the answer, else previousData, else the id', () => {
        const params = { id: 1, previousData: { a: 1, b: 1 }, data: { b: 2 } };
        expect(readUpdated({ data: true }, call, 'id', params)).toEqual({ a: 1, b: 2, id: 1 });
        expect(readUpdated({ data: { b: 3 } }, call, 'id', params)).toEqual({ a: 1, b: 3, id: 1 });
        expect(readDeleted({ data: { name: 'x' } }, call, 'id', { id: 4 })).toEqual({ name: 'x', id: 4 });
        expect(readDeleted({ data: true }, call, 'id', { id: 4, previousData: { id: 4, n: 1 } })).toEqual({
            id: 4,
            n: 1,
        });
        expect(readDeleted({ data: true }, call, 'id', { id: 4 })).toEqual({ id: 4 });
    });

    it("invoked: the read path through the call's transform, row by row for a list", () => {
        const transform = (r: Record<string, unknown>) => ({ ...r, t: true });
        expect(readInvoked({ data: [{ a: 1 }, 2] }, { get: '/x', transform })).toEqual([{ a: 1, t: true }, 2]);
        expect(readInvoked({ data: { a: 1 } }, { get: '/x', transform })).toEqual({ a: 1, t: true });
        expect(readInvoked({ data: { x: { y: 5 } } }, { get: '/x', read: 'data.x.y' })).toBe(5);
    });
});
