import { describe, expect, it } from 'vitest';
import { HttpError } from 'ra-core';
import { SYSTEM_ERROR, errorMessage, isSuccess, parseEnvelope, readPath } from '../../dataProvider/envelope';
import type { SuccessRule } from '../../dataProvider/types';

const answer = (body: unknown, status = 200) => ({
    status,
    headers: new Headers(),
    text: typeof body === 'string' ? body : JSON.stringify(body),
});

function thrown(fn: () => unknown): HttpError {
    try {
        fn();
    } catch (e) {
        return e as HttpError;
    }
    throw new Error('expected a throw');
}

describe('success rules', () => {
    const cases: Array<[SuccessRule, unknown[], unknown[]]> = [
        [
            'code200',
            [{ code: 200 }, { code: '200' }, { code: '000000' }],
            [{ code: 201 }, { code: 0 }, { code: '0' }, { code: '999999' }, { returnCode: '1111' }, {}],
        ],
        [
            'code0',
            [{ code: 0 }, { code: '0' }],
            [{ code: 200 }, { code: 1 }, { code: '000000' }, { returnCode: 0 }, {}],
        ],
        [
            'returnCode1111',
            [{ returnCode: '1111' }, { returnCode: 1111 }],
            [{ returnCode: '9999' }, { returnCode: 0 }, { code: 200 }, { returnCode: '11110' }],
        ],
        [
            'returnCode0',
            [{ returnCode: 0 }, { returnCode: '0' }],
            [{ returnCode: 1 }, { returnCode: '1111' }, { code: 0 }, { returnCode: '00' }],
        ],
    ];
    for (const [rule, accepted, refused] of cases) {
        it(`${rule} accepts ${JSON.stringify(accepted)}`, () => {
            for (const body of accepted) expect(isSuccess(rule, body)).toBe(true);
        });
        it(`${rule} refuses near misses ${JSON.stringify(refused)}`, () => {
            for (const body of refused) expect(isSuccess(rule, body)).toBe(false);
        });
    }
    it('refuses bodies that are not objects', () => {
        expect(isSuccess('code200', null)).toBe(false);
        expect(isSuccess('code0', [0])).toBe(false);
        expect(isSuccess('code0', 0)).toBe(false);
    });
});

describe('error messages', () => {
    it('reads msg, then returnMessage, then data.msg, then the fallback, then 系统错误', () => {
        expect(errorMessage({ msg: '产品名称已存在', returnMessage: 'r', data: { msg: 'd' } })).toBe('产品名称已存在');
        expect(errorMessage({ returnMessage: '分组不存在', data: { msg: 'd' } })).toBe('分组不存在');
        expect(errorMessage({ code: 1, data: { msg: '设备不存在' } })).toBe('设备不存在');
        expect(errorMessage({ code: 500 }, '删除失败')).toBe('删除失败');
        expect(errorMessage({ code: 500 })).toBe('系统错误');
        expect(errorMessage({ code: 500, msg: '  ' })).toBe(SYSTEM_ERROR);
    });

    it('throws HttpError(message, status, body) for a failure inside a 200 envelope', () => {
        const body = { code: 400, msg: '长度限制4~30，中文算2位' };
        const e = thrown(() => parseEnvelope(answer(body), 'code200'));
        expect(e).toBeInstanceOf(HttpError);
        expect(e.message).toBe('长度限制4~30，中文算2位');
        expect(e.status).toBe(200);
        expect(e.body).toEqual(body);
    });

    it('throws for each failure shape: returnMessage, data.msg, none', () => {
        expect(
            thrown(() => parseEnvelope(answer({ returnCode: '9999', returnMessage: '请选择父组!' }), 'returnCode1111'))
                .message,
        ).toBe('请选择父组!');
        expect(thrown(() => parseEnvelope(answer({ code: 1, data: { msg: '未上报属性数据' } }), 'code0')).message).toBe(
            '未上报属性数据',
        );
        expect(thrown(() => parseEnvelope(answer({ code: 1 }), 'code0')).message).toBe('系统错误');
        expect(thrown(() => parseEnvelope(answer({ returnCode: 1 }), 'returnCode0', '修改失败')).message).toBe(
            '修改失败',
        );
    });

    it('reads the envelope of a non-2xx answer and keeps its status', () => {
        const e = thrown(() => parseEnvelope(answer({ code: 409, msg: '标识符已存在' }, 409), 'code200'));
        expect(e.message).toBe('标识符已存在');
        expect(e.status).toBe(409);
    });

    it('does not take a success code in a non-2xx answer for success', () => {
        const e = thrown(() => parseEnvelope(answer({ code: 200, msg: 'oops' }, 500), 'code200'));
        expect(e.status).toBe(500);
        expect(e.message).toBe('oops');
    });

    it('says clearly when the server answers something that is not JSON', () => {
        const e = thrown(() => parseEnvelope(answer('<html>Bad Gateway</html>', 502), 'code200'));
        expect(e).toBeInstanceOf(HttpError);
        expect(e.status).toBe(502);
        expect(e.message).toContain('HTTP 502');
        expect(e.message).toContain('无法识别');
        expect(e.body).toBe('<html>Bad Gateway</html>');
        expect(thrown(() => parseEnvelope(answer('', 200), 'code200')).message).toContain('HTTP 200');
    });

    it('turns a 401 into HttpError 401 carrying the login URL', () => {
        const body = {
            code: 401,
            msg: '登录已过期，请重新登录',
            data: { loginUrl: '/sso/login?redirect=/api/product' },
        };
        const e = thrown(() => parseEnvelope(answer(body, 401), 'code0'));
        expect(e.status).toBe(401);
        expect(e.message).toBe('登录已过期，请重新登录');
        expect((e.body as typeof body).data.loginUrl).toBe('/sso/login?redirect=/api/product');
    });

    it('treats an envelope code 401 inside HTTP 200 as an expired session too', () => {
        const e = thrown(() => parseEnvelope(answer({ code: '401', data: { loginUrl: '/sso/login' } }), 'code200'));
        expect(e.status).toBe(401);
        expect(e.message).toBe('登录已过期，请重新登录');
    });

    it('returns the body on success', () => {
        const body = { code: '000000', msg: 'success', data: { records: [], total: 0 } };
        expect(parseEnvelope(answer(body), 'code200')).toEqual(body);
    });
});

describe('readPath', () => {
    it('follows dotted paths and stops at missing links', () => {
        const body = { data: { records: [1], page: { total: 3 } } };
        expect(readPath(body, 'data.records')).toEqual([1]);
        expect(readPath(body, 'data.page.total')).toBe(3);
        expect(readPath(body, 'data.nope.total')).toBeUndefined();
        expect(readPath(body, '')).toBe(body);
    });
});
