import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form } from './support';

interface LogPage {
    records: Array<{ id: number; opTime: string; log: string }>;
    total: number;
    lastOpTime: string | null;
}

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer({ seed: false });
});
afterAll(() => s?.close());

const find = async (values: Record<string, number> = {}) =>
    (await call(s, 'POST', '/ms3/productLog/find', form(values))).body.data as LogPage;

describe('product log (ms3)', () => {
    it('answers an empty log with lastOpTime null', async () => {
        expect(await find()).toEqual({ records: [], total: 0, lastOpTime: null });
    });

    it('saves entries and pages them newest first with page / size', async () => {
        for (let i = 1; i <= 5; i++) {
            const saved = await call(s, 'POST', '/ms3/productLog/save', form({ log: `第${i}条` }));
            expect(saved.body).toMatchObject({ code: '000000', msg: 'success', data: { log: `第${i}条` } });
        }
        const first = await find({ page: 1, size: 2 });
        expect(first.total).toBe(5);
        expect(first.records.map((r) => r.log)).toEqual(['第5条', '第4条']);
        expect(first.lastOpTime).toBe(first.records[0].opTime);
        expect((await find({ page: 3, size: 2 })).records.map((r) => r.log)).toEqual(['第1条']);
        expect((await find()).records).toHaveLength(5);
        const bad = await call(s, 'POST', '/ms3/productLog/find', form({ page: 0 }));
        expect(bad.status).toBe(400);
        expect((bad.body as { code: string }).code).toBe('999999');
    });

    it('deletes by id, and answers 404 in the ms3 envelope for an unknown id', async () => {
        const [newest] = (await find()).records;
        expect((await call(s, 'POST', '/ms3/productLog/delete', form({ id: newest.id }))).body).toEqual({
            code: '000000',
            msg: 'success',
            data: null,
        });
        expect((await find()).total).toBe(4);
        const again = await call(s, 'POST', '/ms3/productLog/delete', form({ id: newest.id }));
        expect(again.status).toBe(404);
        expect(again.body).toEqual({ code: '999999', msg: '日志不存在' });
        expect((await call(s, 'POST', '/ms3/productLog/delete', form({}))).body).toEqual({
            code: '999999',
            msg: '缺少日志ID',
        });
    });
});
