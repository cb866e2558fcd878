import { describe, expect, it } from 'vitest';
import * as yup from 'yup';
import { bodyOf, listShape, pagingOf, resolver, type Operation, type Schema } from '../../scripts/newResource/contract';
import { fieldLine } from '../../scripts/newResource/definitionFields';
import { callLine, filterLines, listCall } from '../../scripts/newResource/definitionSource';
import { planFields, type FieldPlan, type PlanInput } from '../../scripts/newResource/fields';
import { editLoadOf, rolesOf } from '../../scripts/newResource/operations';
import { schemaObject, yupRule } from '../../scripts/newResource/yupRules';

/**
 * The scaffolder's mapping of each OpenAPI construct to the vocabulary (src/engine/types.ts): the field a property
 * becomes, its yup rule (run here with yup itself, so a message is the one a person reads), the api block's calls,
 * and the TODO(scaffold) notes for what no input says.
 */

const plan = (props: Record<string, Schema>, required: string[] = [], rows: Record<string, Schema> = {}) =>
    planFields({
        rowProps: rows,
        formProps: props,
        formRequired: new Set(required),
        idField: 'id',
        titleOf: (key, s) => s.title ?? key,
        choicesName: (key) => `${key.toUpperCase().replace(/\W/g, '_')}_CHOICES`,
    } satisfies PlanInput);
const one = (s: Schema, required = false) => plan({ v: s }, required ? ['v'] : [], { v: {} })[0];

/** The generated rule, built by yup itself (what the schema file exports). */
const build = (source: string) => new Function('yup', `return ${source};`)(yup) as yup.AnySchema;
/** The first message the rule gives the value, or undefined when it passes; and the value the form submits. */
const check = (rule: yup.AnySchema, value: unknown) => {
    try {
        return { value: rule.validateSync(value) as unknown, error: undefined };
    } catch (e) {
        return { value: undefined, error: (e as yup.ValidationError).errors[0] };
    }
};

const op = (o: Partial<Operation>): Operation => ({ method: 'get', path: '/api/x/list', parameters: [], ...o });

describe('fields from the contract', () => {
    it('an array of plain values: a textarea of one value a line read as the array, with a TODO (no tags input)', () => {
        const f = one({ type: 'array', items: { type: 'integer' }, title: '通道', maxItems: 3 }, true);
        expect(f.kind).toBe('tags');
        expect(f.todo).toMatch(/array of integer: the vocabulary has no tags input/);
        const line = fieldLine(f, 'POST /api/x/save body property v');
        expect(line).toContain("input: 'textarea'");
        expect(line).toContain('// TODO(scaffold): v is an array of integer');
        expect(line).toContain('(POST /api/x/save body property v)');
        const rule = build(yupRule(f));
        expect(check(rule, '3\n4，5').value).toEqual([3, 4, 5]);
        expect(check(rule, [7]).value).toEqual([7]);
        expect(check(rule, '').error).toBe('请输入通道');
        expect(check(rule, '1,2,3,4').error).toBe('通道最多3项');
    });

    it('an array of enum values: checkboxes over its choices, each value one of them', () => {
        const f = one({ type: 'array', items: { type: 'string', enum: ['sms', 'mail', null] }, title: '渠道' }, true);
        expect(f.kind).toBe('checkboxes');
        expect(fieldLine(f, '')).toContain(
            "v: { label: '渠道', input: 'checkboxes', choices: V_CHOICES, required: true }",
        );
        const rule = build(yupRule(f));
        expect(check(rule, ['sms', 'mail']).error).toBeUndefined();
        expect(check(rule, ['fax']).error).toBe('请选择渠道');
        expect(check(rule, []).error).toBe('请选择渠道');
    });

    it('an array of objects: repeatable rows with their grid (rows.columns), each row checked by its own rules', () => {
        const f = one(
            {
                type: 'array',
                title: '值班',
                minItems: 1,
                items: {
                    type: 'object',
                    required: ['userId', 'weekday'],
                    properties: {
                        userId: { type: 'integer', title: '成员', minimum: 1 },
                        weekday: { type: 'integer', enum: [1, 2, 3, 4, 5, 6, 7], title: '星期' },
                        note: { type: 'string', maxLength: 4, title: '备注' },
                    },
                },
            },
            true,
        );
        expect(f.kind).toBe('rows');
        const line = fieldLine(f, '');
        expect(line).toContain("input: 'rows'");
        expect(line).toContain("['userId', { label: '成员', type: 'number', required: true }]");
        expect(line).toContain(
            "['weekday', { label: '星期', type: 'select', choices: V_WEEKDAY_CHOICES, required: true }]",
        );
        expect(line).toContain("columns: 'repeat(3, minmax(0, 1fr)) auto', addLabel: '添加值班'");
        const rule = build(yupRule(f));
        expect(check(rule, [{ userId: 2, weekday: 3 }]).error).toBeUndefined();
        expect(check(rule, []).error).toBe('请添加值班');
        expect(check(rule, [{ userId: 2 }]).error).toBe('请选择星期');
        expect(check(rule, [{ userId: 2, weekday: 9 }]).error).toBe('请选择星期');
        expect(check(rule, [{ userId: 2, weekday: 1, note: '12345' }]).error).toBe('备注不得超过4个字符');
    });

    it('a nested object of plain values: dotted fields, and a nested yup object', () => {
        const fields = plan(
            {
                window: {
                    type: 'object',
                    title: '时段',
                    required: ['start'],
                    properties: {
                        start: { type: 'string', title: '开始', pattern: '^\\d{2}:\\d{2}$' },
                        end: { type: 'string', title: '结束' },
                    },
                },
            },
            ['window'],
        );
        expect(fields.map((f) => [f.key, f.label, f.required])).toEqual([
            ['window.start', '时段·开始', true],
            ['window.end', '时段·结束', false],
        ]);
        expect(fieldLine(fields[0], '')).toContain(
            "'window.start': { label: '时段·开始', required: true, views: ['create', 'edit'] }",
        );
        const schema = build(`yup.object({\n${schemaObject(fields, 'form')}\n})`);
        expect(check(schema, { window: { start: '09:00' } }).error).toBeUndefined();
        expect(check(schema, { window: {} }).error).toBe('请输入时段·开始');
        expect(check(schema, { window: { start: '9点' } }).error).toBe('时段·开始格式不正确');
    });

    it('a deeper object, an open map or a choice of shapes: JSON text with a TODO naming it', () => {
        const fields = plan({
            profile: { type: 'object', properties: { a: { type: 'object', properties: {} } } },
            specs: { oneOf: [{ type: 'object' }, { type: 'array' }] },
            maybe: { oneOf: [{ type: 'string', title: '可空' }, { type: 'null' }] },
        });
        expect(fields[0].kind).toBe('json');
        expect(fields[0].todo).toMatch(/profile is an object of nested objects/);
        expect(fieldLine(fields[0], 'POST /a body property profile')).toContain(
            "profile: { label: 'profile', input: 'code', code: { language: 'json' }, views: ['create', 'edit'] }",
        );
        expect(fields[1].todo).toBe('specs is one of object | array: JSON text until its input is chosen');
        // A shape or null is that shape.
        expect(fields[2]).toMatchObject({ kind: 'text', todo: undefined });
    });

    it('an enum: a select over its choices, the rule refusing other values', () => {
        const f = one({ type: 'string', enum: ['http', 'mqtt'], title: '类型' }, true);
        expect(fieldLine(f, '')).toContain("v: { label: '类型', type: 'select', choices: V_CHOICES, required: true }");
        const rule = build(yupRule(f));
        expect(check(rule, 'ftp').error).toBe('请选择类型');
        expect(check(rule, undefined).error).toBe('请选择类型');
        expect(check(rule, 'mqtt').error).toBeUndefined();
    });

    it('a date-time: the datetime input keeping ISO text; yup date for a JSON body, a checked text for a form', () => {
        const f = one({ type: 'string', format: 'date-time', title: '生效时间' }, true);
        expect(fieldLine(f, '')).toContain(
            "v: { label: '生效时间', type: 'datetime', input: 'datetime', dates: { valueFormat: 'YYYY-MM-DDTHH:mm:ssZ' }, required: true }",
        );
        const json = build(yupRule(f, 'json'));
        expect(yupRule(f, 'json')).toMatch(/^yup\.date\(\)/);
        expect(check(json, '2026-01-02T03:04:05Z').value).toEqual(new Date('2026-01-02T03:04:05Z'));
        expect(check(json, 'soon').error).toBe('生效时间不是有效的时间');
        expect(check(json, '').error).toBe('请选择生效时间');
        const form = build(yupRule(f, 'form'));
        expect(check(form, '2026-01-02T03:04:05Z').value).toBe('2026-01-02T03:04:05Z');
        expect(check(form, 'soon').error).toBe('生效时间不是有效的时间');
    });

    it('formats email and uri: yup email and url rules', () => {
        const email = build(yupRule(one({ type: 'string', format: 'email', title: '邮箱' })));
        expect(check(email, 'a@b.cn').error).toBeUndefined();
        expect(check(email, 'ab.cn').error).toBe('邮箱必须是有效的邮箱地址');
        const uri = build(yupRule(one({ type: 'string', format: 'uri', title: '回调地址' })));
        expect(check(uri, 'https://example.com/hook').error).toBeUndefined();
        expect(check(uri, 'example').error).toBe('回调地址必须是有效的网址');
    });

    it('minLength / maxLength / pattern and minimum / maximum: rules with Chinese messages', () => {
        const text = build(
            yupRule(one({ type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$', title: '编码' }, true)),
        );
        expect(check(text, '').error).toBe('请输入编码');
        expect(check(text, 'a').error).toBe('编码不得少于2个字符');
        expect(check(text, 'abcde').error).toBe('编码不得超过4个字符');
        expect(check(text, 'AB').error).toBe('编码格式不正确');
        expect(check(text, 'ab').error).toBeUndefined();
        const port = build(yupRule(one({ type: 'integer', minimum: 1, maximum: 65535, title: '端口' }, true)));
        expect(check(port, '').error).toBe('请输入端口');
        expect(check(port, 0).error).toBe('端口不能小于1');
        expect(check(port, 70000).error).toBe('端口不能大于65535');
        expect(check(port, 1.5).error).toBe('端口必须是整数');
    });

    it('required only where the contract says it, and a nested property only when its object is required too', () => {
        const fields = plan(
            {
                name: { type: 'string' },
                remark: { type: 'string' },
                window: { type: 'object', required: ['start'], properties: { start: { type: 'string' } } },
            },
            ['name'],
        );
        expect(fields.map((f) => [f.key, f.required])).toEqual([
            ['name', true],
            ['remark', false],
            ['window.start', false],
        ]);
    });
});

describe('calls from the contract', () => {
    const doc = {
        components: {
            schemas: {
                Base: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            },
        },
    };

    it('an application/json body is body json; a form body keeps the default; a raw file is body file', () => {
        const json = bodyOf({ requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } });
        expect(json.encoding).toBe('json');
        expect(callLine(op({ method: 'post', path: '/api/x/save', bodyEncoding: 'json' }), 'code200')).toBe(
            "{ post: '/api/x/save', body: 'json' }",
        );
        const both = bodyOf({
            requestBody: {
                content: { 'application/json': { schema: {} }, 'application/x-www-form-urlencoded': { schema: {} } },
            },
        });
        expect(both.encoding).toBe('form');
        expect(callLine(op({ method: 'post', path: '/api/x/save', bodyEncoding: 'form' }), 'code200')).toBe(
            "{ post: '/api/x/save' }",
        );
        expect(bodyOf({ requestBody: { content: { 'application/octet-stream': {} } } }).encoding).toBe('file');
    });

    it('allOf bodies merge their properties and required names', () => {
        const resolve = resolver(doc);
        const merged = resolve({
            allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { id: { type: 'integer' } } }],
        }) as Schema;
        expect(Object.keys(merged.properties!)).toEqual(['name', 'id']);
        expect(merged.required).toEqual(['name']);
    });

    it('paging names as the contract spells them', () => {
        const q = (name: string) => ({ name, in: 'query' });
        expect(pagingOf([q('pageNumber'), q('pageSize'), q('name')])).toEqual(['pageNumber', 'pageSize']);
        expect(pagingOf([q('page'), q('size')])).toEqual(['page', 'size']);
        expect(pagingOf([q('nextPage'), q('pageSize')])).toEqual(['nextPage', 'pageSize']);
        expect(pagingOf([q('limit')])).toBeUndefined();
    });

    it('the list envelope: records / total, list alone, resultList / totalCount, a bare array', () => {
        const row = { type: 'object', properties: { id: { type: 'integer' } } };
        const answer = (data: Schema): Schema => ({ type: 'object', properties: { data } });
        const records = answer({
            type: 'object',
            properties: {
                records: { type: 'array', items: row },
                total: { type: 'integer' },
                running: { type: 'integer' },
            },
        });
        expect(listShape(records)).toMatchObject({ read: 'data.records', total: 'data.total' });
        const list = answer({ type: 'object', properties: { list: { type: 'array', items: row } } });
        expect(listShape(list)).toMatchObject({ read: 'data.list', total: undefined });
        const events = answer({
            type: 'object',
            properties: {
                resultList: { type: 'array', items: row },
                currentPage: { type: 'integer' },
                totalCount: { type: 'integer' },
            },
        });
        expect(listShape(events)).toMatchObject({ read: 'data.resultList', total: 'data.totalCount' });
        expect(listShape(answer({ type: 'array', items: row }))).toMatchObject({ read: 'data' });
    });

    it("getList says the contract's paging, read and total; a list without paging has none", () => {
        const row = { type: 'object', properties: { id: { type: 'integer' } } } as Schema;
        const paged = op({
            path: '/api/device/events',
            parameters: [
                { name: 'nextPage', in: 'query' },
                { name: 'pageSize', in: 'query' },
            ],
            answer: {
                properties: {
                    data: {
                        type: 'object',
                        properties: { resultList: { type: 'array', items: row }, totalCount: { type: 'integer' } },
                    },
                },
            },
        });
        expect(listCall({ roles: rolesOf([paged], 't'), rule: 'code200' })).toBe(
            "{ get: '/api/device/events', paging: ['nextPage', 'pageSize'], read: 'data.resultList', total: 'data.totalCount' }",
        );
        const bare = op({ path: '/api/topic/list', answer: { properties: { data: { type: 'array', items: row } } } });
        expect(listCall({ roles: rolesOf([bare], 't'), rule: 'code200' })).toBe(
            "{ get: '/api/topic/list', read: 'data' }",
        );
    });

    it('a filter the vocabulary cannot take (an array) is a TODO, not dropped', () => {
        const todos: Array<{ what: string; where: string }> = [];
        const roles = rolesOf(
            [op({ answer: { properties: { data: { type: 'array', items: { type: 'object' } } } } })],
            't',
        );
        const lines = filterLines({ fields: [], todos, roles }, [
            { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
            { name: 'kind', in: 'query', schema: { type: 'string', enum: ['a', null] } },
        ]);
        expect(lines[0]).toContain('// TODO(scaffold): filter ids is an array');
        expect(todos).toEqual([
            { what: expect.stringContaining('filter ids'), where: 'GET /api/x/list parameter ids' },
        ]);
        expect(lines[1]).toContain("choices: [{ id: 'a', name: 'a' }]");
    });
});

describe('how editing gets its record', () => {
    const rows: Schema = { properties: { id: {}, name: {} } };
    const form: Schema = { properties: { id: {}, name: {}, memberIds: {}, rota: {} } };
    const detail = op({
        path: '/api/x/get',
        answer: { properties: { data: { type: 'object', properties: { id: {}, name: {}, memberIds: {}, rota: {} } } } },
    });

    it('reads the detail (getOne) when the rows lack what the form edits and a detail path answers it', () => {
        expect(editLoadOf(rows, form, detail, 'id')).toEqual({ from: 'getOne', missing: ['memberIds', 'rota'] });
    });

    it('keeps the row when it carries every field, or when the missing ones are write-only', () => {
        expect(editLoadOf(form, form, detail, 'id').from).toBe('row');
        const secret: Schema = { properties: { id: {}, name: {}, password: {} } };
        expect(editLoadOf(rows, secret, detail, 'id')).toEqual({ from: 'row', missing: ['password'] });
    });

    it('says so (a TODO) when the rows lack fields and no detail path exists', () => {
        expect(editLoadOf(rows, form, undefined, 'id').from).toBe('todo');
    });
});

export type { FieldPlan };
