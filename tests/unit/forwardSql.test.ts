import { describe, expect, it } from 'vitest';
import { compileFlowSql, FlowSqlError, topicMatches, type FlowMessage } from '../../server/forward/sql';

/**
 * The SQL of data-forwarding flows (server/forward/sql): what a flow selects from one device message (columns, their
 * names, values and types), which messages its FROM and WHERE select, SQL's NULL where a path is missing or types do
 * not match, and the Chinese refusals with the position in the operator's text.
 */

const TOPIC = '/sys/a1Pk/lamp01/thing/event/property/post';
// 2024-01-02 03:04:05.678 UTC, 11:04:05 in Asia/Shanghai.
const STORED_AT = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

function message(payload: unknown = defaultPayload(), topic = TOPIC): FlowMessage {
    return { topic, productKey: 'a1Pk', deviceName: 'lamp01', messageId: 'm-42', timestamp: STORED_AT, payload };
}

function defaultPayload() {
    return {
        id: '123',
        version: '1.0',
        method: 'thing.event.property.post',
        params: {
            Temperature: 31.5,
            Label: 'Hall',
            Tags: ['x', 'y', 'z'],
            Matrix: [
                [1, 2],
                [3, 4],
            ],
            On: true,
        },
        items: { Temperature: { value: 31.5, time: 1704164645000 }, Humidity: { value: 40, time: 1704164645000 } },
    };
}

/** The value `expr` selects from the default message (or `payload`). */
function value(expr: string, payload?: unknown): unknown {
    const row = compileFlowSql(`SELECT ${expr} AS v FROM "/sys/#"`).run(message(payload));
    expect(row).toBeDefined();
    return row!.v;
}

/** Whether `where` selects the default message (or `payload`). */
function selects(where: string, payload?: unknown): boolean {
    return compileFlowSql(`SELECT 1 AS one FROM "/sys/#" WHERE ${where}`).run(message(payload)) !== undefined;
}

function refusal(sql: string): { message: string; line: number; column: number } {
    try {
        compileFlowSql(sql);
    } catch (e) {
        expect(e).toBeInstanceOf(FlowSqlError);
        const error = e as FlowSqlError;
        return { message: error.message, line: error.line, column: error.column };
    }
    throw new Error(`compiled without refusal: ${sql}`);
}

describe('the example flow', () => {
    const sql =
        `SELECT deviceName() AS dn, items.Temperature.value AS temp, timestamp() AS t ` +
        `FROM "/sys/+/+/thing/event/property/post" ` +
        `WHERE items.Temperature.value > 30 AND deviceName() LIKE 'lamp%'`;

    it('selects a hot lamp as one row of the named columns', () => {
        const flow = compileFlowSql(sql);
        expect(flow.from).toBe('/sys/+/+/thing/event/property/post');
        expect(flow.columns).toEqual(['dn', 'temp', 't']);
        expect(flow.run(message())).toEqual({ dn: 'lamp01', temp: 31.5, t: STORED_AT });
    });

    it('does not select a cool lamp, another device or another topic', () => {
        const flow = compileFlowSql(sql);
        const cool = defaultPayload();
        cool.items.Temperature.value = 30;
        expect(flow.run(message(cool))).toBeUndefined();
        expect(flow.run({ ...message(), deviceName: 'fan01' })).toBeUndefined();
        expect(flow.run(message(defaultPayload(), '/sys/a1Pk/lamp01/thing/event/alarm/post'))).toBeUndefined();
        expect(flow.matchesTopic(TOPIC)).toBe(true);
        expect(flow.matchesTopic('/sys/a1Pk/lamp01/thing/event/alarm/post')).toBe(false);
    });

    it('selects nothing when the path is missing (NULL > 30 is not true)', () => {
        expect(compileFlowSql(sql).run(message({ params: {} }))).toBeUndefined();
    });
});

describe('SELECT columns', () => {
    it('* contributes the payload top-level keys, later columns add to them', () => {
        const flow = compileFlowSql('SELECT *, deviceName() AS dn FROM "/sys/#"');
        expect(flow.columns).toEqual(['*', 'dn']);
        expect(flow.run(message({ a: 1, b: { c: 2 } }))).toEqual({ a: 1, b: { c: 2 }, dn: 'lamp01' });
        expect(flow.run(message('not an object'))).toEqual({ dn: 'lamp01' });
    });

    it('* does not let a payload key __proto__ change the row', () => {
        const row = compileFlowSql('SELECT * FROM "/sys/#"').run(message(JSON.parse('{"__proto__":{"x":1},"a":2}')));
        expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
        expect(Object.keys(row!)).toEqual(['__proto__', 'a']);
        expect((row as { x?: number }).x).toBeUndefined();
    });

    it('names a column without AS by the path last segment or the function name', () => {
        const flow = compileFlowSql(
            'SELECT items.Temperature.value, params.Label, id, deviceName(), TOPIC(2), `params`.`Label` AS quoted, ' +
                '\'lit\', 1 + 2 FROM "/sys/#"',
        );
        expect(flow.columns).toEqual(['value', 'Label', 'id', 'deviceName', 'TOPIC', 'quoted', 'col7', 'col8']);
        expect(flow.run(message())).toEqual({
            value: 31.5,
            Label: 'Hall',
            id: '123',
            deviceName: 'lamp01',
            TOPIC: 'a1Pk',
            quoted: 'Hall',
            col7: 'lit',
            col8: 3,
        });
    });

    it('reads paths of any depth, array indexes, and NULL for what is missing', () => {
        expect(value('items.Humidity.value')).toBe(40);
        expect(value('params.Tags[1]')).toBe('y');
        expect(value('params.Matrix[1][0]')).toBe(3);
        expect(value('a.b.c.d.e', { a: { b: { c: { d: { e: 'deep' } } } } })).toBe('deep');
        expect(value('params.Tags[9]')).toBeNull();
        expect(value('params.Nothing.value')).toBeNull();
        expect(value('params.Label.length')).toBeNull();
        expect(value('params.constructor')).toBeNull();
        expect(value('missing')).toBeNull();
    });

    it('takes string, number, boolean and NULL literals with their types', () => {
        expect(value("'it''s'")).toBe("it's");
        expect(value("'a\\'b'")).toBe("a'b");
        expect(value('"double"')).toBe('double');
        expect(value('42')).toBe(42);
        expect(value('1.5')).toBe(1.5);
        expect(value('-3')).toBe(-3);
        expect(value('TRUE')).toBe(true);
        expect(value('false')).toBe(false);
        expect(value('NULL')).toBeNull();
    });

    it('keeps the row free of missing paths as NULL, not undefined', () => {
        const row = compileFlowSql('SELECT params.Nope AS nope FROM "/sys/#"').run(message());
        expect(row).toEqual({ nope: null });
        expect(Object.hasOwn(row!, 'nope')).toBe(true);
    });
});

describe('run never throws for a message', () => {
    const flow = compileFlowSql(
        "SELECT *, payload('json') AS j, to_json(params) AS p, concat('x', params) AS c, cast(params AS string) AS s, " +
            'params.a.b AS ab, upper(deviceName()) AS d FROM "/sys/#" WHERE params IS NULL OR params IS NOT NULL',
    );

    it('a payload that is null, a string, an array or a number: paths NULL, * nothing', () => {
        for (const payload of [null, 'text', [1, 2], 7]) {
            const row = flow.run(message(payload));
            expect(row).toMatchObject({ p: null, c: null, s: null, ab: null, d: 'LAMP01' });
            expect(row!.j).toBe(JSON.stringify(payload));
        }
    });

    it('a payload JSON cannot write (a cycle, a bigint) gives NULL where it is written as JSON', () => {
        const cyclic: Record<string, unknown> = { n: 1 };
        cyclic.self = cyclic;
        const row = flow.run(message({ params: cyclic, big: 10n }));
        expect(row).toMatchObject({ j: null, p: null, c: null, s: null, ab: null, big: 10n });
    });

    it('a time zone Intl does not know is refused when compiling, not when formatting', () => {
        expect(() => compileFlowSql('SELECT 1 AS x FROM "/a"', { timeZone: 'Mars/Olympus' })).toThrow(RangeError);
    });
});

describe('message functions', () => {
    it('deviceName, productKey, messageId, topic and topic(n)', () => {
        expect(value('deviceName()')).toBe('lamp01');
        expect(value('productKey()')).toBe('a1Pk');
        expect(value('messageId()')).toBe('m-42');
        expect(value('topic()')).toBe(TOPIC);
        expect(value('topic(1)')).toBe('sys');
        expect(value('topic(3)')).toBe('lamp01');
        expect(value('topic(7)')).toBe('post');
        expect(value('topic(8)')).toBeNull();
        expect(value('topic(0)')).toBeNull();
    });

    it('names are case-insensitive', () => {
        expect(value('DEVICENAME()')).toBe('lamp01');
        expect(value('ProductKey()')).toBe('a1Pk');
    });

    it('timestamp() is the stored time in ms, timestamp(format) formats it in the platform zone', () => {
        expect(value('timestamp()')).toBe(STORED_AT);
        expect(value("timestamp('yyyy-MM-dd HH:mm:ss')")).toBe('2024-01-02 11:04:05');
        expect(value("timestamp('yyyy/MM/dd HH:mm:ss.SSS')")).toBe('2024/01/02 11:04:05.678');
        const utc = compileFlowSql('SELECT timestamp(\'yyyy-MM-dd HH:mm\') AS t FROM "/#"', { timeZone: 'UTC' });
        expect(utc.run(message())).toEqual({ t: '2024-01-02 03:04' });
    });

    it('payload() is the whole payload, payload(json) its JSON text', () => {
        expect(value('payload()', { a: [1, 2] })).toEqual({ a: [1, 2] });
        expect(value("payload('json')", { a: [1, 2] })).toBe('{"a":[1,2]}');
    });

    it('newuuid() answers a fresh UUID each message', () => {
        const flow = compileFlowSql('SELECT newuuid() AS u FROM "/#"');
        const first = flow.run(message())!.u;
        const second = flow.run(message())!.u;
        expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(second).not.toBe(first);
    });
});

describe('arithmetic', () => {
    it('+ - * / % with precedence, on numbers', () => {
        expect(value('params.Temperature + 1')).toBe(32.5);
        expect(value('10 - 4 - 3')).toBe(3);
        expect(value('2 + 3 * 4')).toBe(14);
        expect(value('(2 + 3) * 4')).toBe(20);
        expect(value('7 / 2')).toBe(3.5);
        expect(value('7 % 3')).toBe(1);
        expect(value('7 MOD 4')).toBe(3);
        expect(value('7 DIV 2')).toBe(3);
        expect(value('-params.Temperature')).toBe(-31.5);
    });

    it('division by zero, NULL and non-numbers give NULL', () => {
        expect(value('1 / 0')).toBeNull();
        expect(value('5 % 0')).toBeNull();
        expect(value('missing + 1')).toBeNull();
        expect(value("'a' + 1")).toBeNull();
        expect(value('params.On * 2')).toBeNull();
    });
});

describe('string functions', () => {
    it('concat and || join strings, numbers and booleans; NULL makes NULL', () => {
        expect(value("concat(deviceName(), '-', params.Temperature, '-', params.On)")).toBe('lamp01-31.5-true');
        expect(value("deviceName() || ':' || productKey()")).toBe('lamp01:a1Pk');
        expect(value("concat('a', missing)")).toBeNull();
        expect(value("'a' || NULL")).toBeNull();
    });

    it('lower, upper, length, trim', () => {
        expect(value("lower('AbC')")).toBe('abc');
        expect(value('upper(params.Label)')).toBe('HALL');
        expect(value("length('温度ab')")).toBe(4);
        expect(value("trim('  x y  ')")).toBe('x y');
        expect(value('lower(12)')).toBeNull();
        expect(value('length(missing)')).toBeNull();
    });

    it('substring is 1-based, with an optional length and a start from the end when negative', () => {
        expect(value("substring('hello', 2, 3)")).toBe('ell');
        expect(value("substring('hello', 2)")).toBe('ello');
        expect(value("substring('hello', -3)")).toBe('llo');
        expect(value("substring('hello', 9)")).toBe('');
        expect(value("substring('hello', 'x')")).toBeNull();
    });

    it('replace every occurrence, startswith, endswith', () => {
        expect(value("replace('a-b-c', '-', '+')")).toBe('a+b+c');
        expect(value("replace('a.b', '.', '')")).toBe('ab');
        expect(value("startswith(deviceName(), 'lamp')")).toBe(true);
        expect(value("startswith(deviceName(), 'fan')")).toBe(false);
        expect(value("endswith(deviceName(), '01')")).toBe(true);
        expect(value("endswith(deviceName(), '02')")).toBe(false);
        expect(value("startswith(missing, 'a')")).toBeNull();
    });
});

describe('numeric functions', () => {
    it('abs, round (half away from zero, optional digits), floor, ceil', () => {
        expect(value('abs(-2.5)')).toBe(2.5);
        expect(value('round(2.5)')).toBe(3);
        expect(value('round(-2.5)')).toBe(-3);
        expect(value('round(3.14159, 2)')).toBe(3.14);
        expect(value('round(1.005, 2)')).toBe(1.01);
        expect(value('round(1234, -2)')).toBe(1200);
        expect(value('floor(-2.5)')).toBe(-3);
        expect(value('ceil(2.1)')).toBe(3);
        expect(value("abs('x')")).toBeNull();
    });

    it('power, sqrt, log (natural, or with a base first)', () => {
        expect(value('power(2, 10)')).toBe(1024);
        expect(value('sqrt(16)')).toBe(4);
        expect(value('sqrt(-1)')).toBeNull();
        expect(value('log(1)')).toBe(0);
        expect(value('round(log(10), 6)')).toBe(2.302585);
        expect(value('log(2, 8)')).toBe(3);
        expect(value('log(0)')).toBeNull();
    });
});

describe('JSON, cast, coalesce, CASE', () => {
    it('json_get reads a path from an object or a JSON text', () => {
        expect(value("json_get(params, 'Tags[2]')")).toBe('z');
        expect(value("json_get(payload(), 'items.Temperature.value')")).toBe(31.5);
        expect(value('json_get(\'{"a":{"b":[5,6]}}\', \'a.b[1]\')')).toBe(6);
        expect(value("json_get(params, 'Nope.x')")).toBeNull();
        expect(value("json_get('not json', 'a')")).toBeNull();
    });

    it('to_json writes JSON text, from_json reads it (NULL when it is not JSON)', () => {
        expect(value('to_json(params.Tags)')).toBe('["x","y","z"]');
        expect(value("to_json('a')")).toBe('"a"');
        expect(value('from_json(\'{"x":[1,true]}\')')).toEqual({ x: [1, true] });
        expect(value("from_json('{bad')")).toBeNull();
    });

    it('cast to int, double, string and boolean', () => {
        expect(value("cast('12' AS int)")).toBe(12);
        expect(value('cast(3.9 AS int)')).toBe(3);
        expect(value('cast(-3.9 AS integer)')).toBe(-3);
        expect(value("cast('3.5' AS double)")).toBe(3.5);
        expect(value('cast(params.Temperature AS string)')).toBe('31.5');
        expect(value('cast(12 AS char)')).toBe('12');
        expect(value('cast(params.Tags AS string)')).toBe('["x","y","z"]');
        expect(value("cast('true' AS boolean)")).toBe(true);
        expect(value('cast(0 AS boolean)')).toBe(false);
        expect(value('cast(params.On AS int)')).toBe(1);
        expect(value("cast('x' AS int)")).toBeNull();
        expect(value("cast('' AS double)")).toBeNull();
    });

    it('coalesce answers its first non-NULL argument', () => {
        expect(value("coalesce(missing, params.Nope, 'fallback', 'late')")).toBe('fallback');
        expect(value('coalesce(params.Temperature, 0)')).toBe(31.5);
        expect(value('coalesce(missing)')).toBeNull();
    });

    it('CASE WHEN and CASE x WHEN pick the first match, else the ELSE or NULL', () => {
        const searched =
            "CASE WHEN params.Temperature > 40 THEN 'hot' WHEN params.Temperature > 30 THEN 'warm' ELSE 'cold' END";
        expect(value(searched)).toBe('warm');
        expect(value(searched, { params: { Temperature: 10 } })).toBe('cold');
        expect(value(searched, { params: { Temperature: 50 } })).toBe('hot');
        expect(value("CASE params.Label WHEN 'Hall' THEN 1 WHEN 'Room' THEN 2 END")).toBe(1);
        expect(value("CASE params.Label WHEN 'Room' THEN 2 END")).toBeNull();
    });
});

describe('WHERE', () => {
    it('= <> != < <= > >= compare numbers numerically', () => {
        expect(selects('params.Temperature = 31.5')).toBe(true);
        expect(selects('params.Temperature = 31')).toBe(false);
        expect(selects('params.Temperature <> 31')).toBe(true);
        expect(selects('params.Temperature <> 31.5')).toBe(false);
        expect(selects('params.Temperature != 31')).toBe(true);
        expect(selects('params.Temperature != 31.5')).toBe(false);
        expect(selects('params.Temperature < 100')).toBe(true);
        expect(selects('params.Temperature < 31.5')).toBe(false);
        expect(selects('params.Temperature <= 31.5')).toBe(true);
        expect(selects('params.Temperature <= 31')).toBe(false);
        expect(selects('params.Temperature > 9')).toBe(true);
        expect(selects('params.Temperature > 31.5')).toBe(false);
        expect(selects('params.Temperature >= 31.5')).toBe(true);
        expect(selects('params.Temperature >= 32')).toBe(false);
    });

    it('compares strings lexically and booleans by value', () => {
        expect(selects("params.Label = 'Hall'")).toBe(true);
        expect(selects("params.Label > 'Ha'")).toBe(true);
        expect(selects("params.Label < 'Ha'")).toBe(false);
        expect(selects("'10' < '9'")).toBe(true);
        expect(selects('params.On = TRUE')).toBe(true);
        expect(selects('params.On = FALSE')).toBe(false);
    });

    it('a comparison of different types, or with NULL, is NULL: neither it nor its NOT selects', () => {
        expect(selects("params.Temperature = '31.5'")).toBe(false);
        expect(selects("NOT (params.Temperature = '31.5')")).toBe(false);
        expect(selects('missing = NULL')).toBe(false);
        expect(selects('NOT (missing > 1)')).toBe(false);
        expect(selects('missing <> 1')).toBe(false);
    });

    it('AND, OR, NOT with SQL three-valued logic and parentheses', () => {
        expect(selects("params.Temperature > 30 AND params.Label = 'Hall'")).toBe(true);
        expect(selects("params.Temperature > 30 AND params.Label = 'Room'")).toBe(false);
        expect(selects("params.Temperature > 40 OR params.Label = 'Hall'")).toBe(true);
        expect(selects("params.Temperature > 40 OR params.Label = 'Room'")).toBe(false);
        expect(selects('missing > 1 OR params.On')).toBe(true);
        expect(selects('NOT (missing > 1 AND params.Temperature > 100)')).toBe(true);
        expect(selects('NOT params.Temperature > 100')).toBe(true);
        expect(selects('NOT (params.Temperature > 30)')).toBe(false);
        expect(selects("(params.Temperature > 40 OR params.Label = 'Hall') AND deviceName() = 'lamp01'")).toBe(true);
        expect(selects("params.Temperature > 40 OR params.Label = 'Hall' AND deviceName() = 'x'")).toBe(false);
    });

    it('IN and NOT IN', () => {
        expect(selects("deviceName() IN ('lamp01', 'lamp02')")).toBe(true);
        expect(selects("deviceName() IN ('fan01')")).toBe(false);
        expect(selects("deviceName() NOT IN ('fan01', 'fan02')")).toBe(true);
        expect(selects("deviceName() NOT IN ('lamp01')")).toBe(false);
        expect(selects('items.Humidity.value IN (30, 40)')).toBe(true);
        expect(selects("deviceName() NOT IN ('fan01', NULL)")).toBe(false);
        expect(selects('missing NOT IN (1)')).toBe(false);
    });

    it('LIKE and NOT LIKE with % and _ (and \\ escaping them)', () => {
        expect(selects("deviceName() LIKE 'lamp%'")).toBe(true);
        expect(selects("deviceName() LIKE 'lamp'")).toBe(false);
        expect(selects("deviceName() LIKE 'lamp_1'")).toBe(true);
        expect(selects("deviceName() LIKE 'lamp_'")).toBe(false);
        expect(selects("deviceName() LIKE '%mp0%'")).toBe(true);
        expect(selects("deviceName() LIKE '%lamp01%'")).toBe(true);
        expect(selects("deviceName() NOT LIKE 'fan%'")).toBe(true);
        expect(selects("deviceName() NOT LIKE 'l%'")).toBe(false);
        expect(selects("topic() LIKE '/sys/a1Pk/%/thing/%'")).toBe(true);
        expect(selects("params.Label LIKE 'H.ll'")).toBe(false);
        expect(selects("'50%' LIKE '50\\%'")).toBe(true);
        expect(selects("'500' LIKE '50\\%'")).toBe(false);
        expect(selects("params.Label LIKE concat(substring(params.Label, 1, 1), '%')")).toBe(true);
        expect(selects("missing NOT LIKE 'x'")).toBe(false);
    });

    it('IS NULL, IS NOT NULL, IS TRUE', () => {
        expect(selects('missing IS NULL')).toBe(true);
        expect(selects('params.Label IS NULL')).toBe(false);
        expect(selects('params.Label IS NOT NULL')).toBe(true);
        expect(selects('items.Nothing.value IS NOT NULL')).toBe(false);
        expect(selects('params.On IS TRUE')).toBe(true);
        expect(selects('params.On IS NOT TRUE')).toBe(false);
    });

    it('BETWEEN and NOT BETWEEN are inclusive', () => {
        expect(selects('params.Temperature BETWEEN 30 AND 31.5')).toBe(true);
        expect(selects('params.Temperature BETWEEN 31.6 AND 40')).toBe(false);
        expect(selects('params.Temperature NOT BETWEEN 31.6 AND 40')).toBe(true);
        expect(selects('params.Temperature NOT BETWEEN 31.5 AND 40')).toBe(false);
        expect(selects('missing BETWEEN 1 AND 2')).toBe(false);
    });

    it('a non-boolean condition: numbers are true when not zero, other types are NULL', () => {
        expect(selects('items.Humidity.value')).toBe(true);
        expect(selects('0')).toBe(false);
        expect(selects('params.Label')).toBe(false);
    });
});

describe('FROM topic filters', () => {
    it('+ matches one level, # the rest', () => {
        expect(topicMatches('/sys/+/+/thing/event/property/post', TOPIC)).toBe(true);
        expect(topicMatches('/sys/+/thing/event/property/post', TOPIC)).toBe(false);
        expect(topicMatches('/sys/a1Pk/#', TOPIC)).toBe(true);
        expect(topicMatches('/sys/b2Pk/#', TOPIC)).toBe(false);
        expect(topicMatches('#', TOPIC)).toBe(true);
        expect(topicMatches('/sys/a1Pk/lamp01/#', '/sys/a1Pk/lamp01')).toBe(true);
        expect(topicMatches('/sys/+/+/thing/event/+/post', '/sys/a1Pk/lamp01/thing/event/alarm/post')).toBe(true);
        expect(topicMatches('/sys/+', '/sys/a/b')).toBe(false);
        expect(topicMatches('/sys/+/', '/sys/a/')).toBe(true);
        expect(topicMatches(TOPIC, TOPIC)).toBe(true);
        expect(topicMatches(TOPIC, TOPIC + '/x')).toBe(false);
        expect(topicMatches(TOPIC + '/x', TOPIC)).toBe(false);
        expect(topicMatches('/sys/+/+/x', '/sys/a')).toBe(false);
        expect(topicMatches('/sys/ab', '/sys/a')).toBe(false);
        expect(topicMatches('/sys/a', '/sys/ab')).toBe(false);
        expect(topicMatches('+/+', 'a/')).toBe(true);
    });

    it("also matches a device's topic in Alibaba's forwarding form, without /sys", () => {
        expect(topicMatches('/+/+/thing/event/property/post', TOPIC)).toBe(true);
        expect(topicMatches('/a1Pk/+/thing/event/property/post', TOPIC)).toBe(true);
        expect(topicMatches('/b2Pk/+/thing/event/property/post', TOPIC)).toBe(false);
        expect(topicMatches(TOPIC.slice(4), TOPIC)).toBe(true);
        expect(topicMatches(TOPIC.slice(4) + '/x', TOPIC)).toBe(false);
        expect(topicMatches('/+/+/thing/event/property/post', '/ext/a/b/thing/event/property/post')).toBe(false);
    });

    it('wildcards do not match a $ topic first level; a # not last or a partial wildcard matches nothing', () => {
        expect(topicMatches('#', '$SYS/broker')).toBe(false);
        expect(topicMatches('+/broker', '$SYS/broker')).toBe(false);
        expect(topicMatches('$SYS/#', '$SYS/broker')).toBe(true);
        expect(topicMatches('/sys/#/post', TOPIC)).toBe(false);
        expect(topicMatches('/sys/a1+/#', TOPIC)).toBe(false);
    });

    it('takes the filter in double, single or back quotes', () => {
        expect(compileFlowSql("SELECT 1 AS x FROM '/sys/+/lamp01/#'").from).toBe('/sys/+/lamp01/#');
        expect(compileFlowSql('SELECT 1 AS x FROM `/a/#`').from).toBe('/a/#');
        expect(compileFlowSql('select 1 as x\nfrom\n  "/a/+"  where 1 = 1').from).toBe('/a/+');
    });
});

describe('refusals', () => {
    it('unparsable text, at the parser location in the operator text', () => {
        expect(refusal('SELECT a b c FROM "/a"')).toEqual({
            message: '语法错误：无法理解「c」（第1行第12列）',
            line: 1,
            column: 12,
        });
        expect(refusal('SELECT a\nFROM "/a/#"\nWHERE items.x.y >')).toEqual({
            message: '语句不完整（第3行第18列）',
            line: 3,
            column: 18,
        });
        expect(refusal('SELECT a.b.c.d.e ) FROM "/a"\n')).toMatchObject({ line: 1, column: 18 });
    });

    it('an empty statement and one over 8 KB', () => {
        expect(refusal('  \n ')).toEqual({ message: '语句为空（第1行第1列）', line: 1, column: 1 });
        expect(refusal('-- only a comment')).toEqual({ message: '语句为空（第1行第1列）', line: 1, column: 1 });
        const long = `SELECT '${'温'.repeat(3000)}' AS x FROM "/a"`;
        expect(refusal(long)).toEqual({ message: '语句超过 8 KB（第1行第2737列）', line: 1, column: 2737 });
        expect(() => compileFlowSql(`SELECT '${'x'.repeat(8000)}' AS x FROM "/a"`)).not.toThrow();
    });

    it('anything but one SELECT', () => {
        expect(refusal('INSERT INTO t VALUES (1)')).toEqual({
            message: '流转只支持一条 SELECT 语句，不支持 INSERT（第1行第1列）',
            line: 1,
            column: 1,
        });
        expect(refusal('SELECT 1 AS a FROM "/a";\nSELECT 2 AS b FROM "/b"')).toEqual({
            message: '流转只支持一条 SELECT 语句（第2行第1列）',
            line: 2,
            column: 1,
        });
        expect(refusal('SELECT a FROM "/a" UNION SELECT b FROM "/b"')).toEqual({
            message: '流转不支持 UNION（第1行第20列）',
            line: 1,
            column: 20,
        });
    });

    it('GROUP BY, ORDER BY, LIMIT, HAVING, DISTINCT, JOIN, aggregates', () => {
        expect(refusal('SELECT a FROM "/a" GROUP BY a')).toEqual({
            message: '流转不支持 GROUP BY（第1行第20列）',
            line: 1,
            column: 20,
        });
        expect(refusal('SELECT a FROM "/a"\n  ORDER BY a')).toEqual({
            message: '流转不支持 ORDER BY（第2行第3列）',
            line: 2,
            column: 3,
        });
        expect(refusal('SELECT a FROM "/a" LIMIT 1').message).toBe('流转不支持 LIMIT（第1行第20列）');
        expect(refusal('SELECT a FROM "/a" HAVING a > 1').message).toBe('流转不支持 HAVING（第1行第20列）');
        expect(refusal('SELECT DISTINCT a FROM "/a"').message).toBe('流转不支持 DISTINCT（第1行第8列）');
        expect(refusal('SELECT a FROM "/a" JOIN "/b" ON a = b').message).toBe('流转不支持 JOIN（第1行第20列）');
        expect(refusal('SELECT count(*) FROM "/a"').message).toBe('流转不支持聚合函数 COUNT（第1行第8列）');
    });

    it('FROM that is not one quoted topic filter', () => {
        expect(refusal('SELECT a')).toEqual({
            message: '缺少 FROM：请写一个用引号括起的主题，如 FROM "/sys/+/+/thing/event/property/post"（第1行第9列）',
            line: 1,
            column: 9,
        });
        expect(refusal('SELECT a FROM devices').message).toBe(
            'FROM 后应是一个用引号括起的主题，如 FROM "/sys/+/+/thing/event/property/post"（第1行第15列）',
        );
        expect(refusal('SELECT a FROM "/a", "/b"').message).toBe('FROM 只能写一个主题（第1行第21列）');
        expect(refusal('SELECT a FROM (SELECT b FROM "/b") x').message).toBe(
            'FROM 后应是一个用引号括起的主题，如 FROM "/sys/+/+/thing/event/property/post"（第1行第15列）',
        );
        expect(refusal('SELECT a FROM "/a/#/b"').message).toBe('主题过滤器不合法：# 只能是最后一级（第1行第15列）');
        expect(refusal('SELECT a FROM "/a/b+"').message).toBe('主题过滤器不合法：+ 必须独占一级（第1行第15列）');
        expect(refusal('SELECT a FROM ""').message).toBe('主题过滤器不能为空（第1行第15列）');
    });

    it('an unknown function names it; a wrong argument count says what it takes', () => {
        expect(refusal('SELECT foo(1) FROM "/a"')).toEqual({
            message: '未知函数 foo（第1行第8列）',
            line: 1,
            column: 8,
        });
        expect(refusal('SELECT a FROM "/a" WHERE\n  json.parse(a) = 1').message).toBe(
            '未知函数 json.parse（第2行第3列）',
        );
        expect(refusal('SELECT round() AS r FROM "/a"')).toEqual({
            message: '函数 round 需要 1 到 2 个参数，写了 0 个（第1行第8列）',
            line: 1,
            column: 8,
        });
        expect(refusal('SELECT deviceName(1) AS d FROM "/a"').message).toBe(
            '函数 deviceName 不需要参数，写了 1 个（第1行第8列）',
        );
        expect(refusal('SELECT x, replace(a, b) AS r FROM "/a"').message).toBe(
            '函数 replace 需要 3 个参数，写了 2 个（第1行第11列）',
        );
        expect(refusal('SELECT concat() AS r FROM "/a"').message).toBe(
            '函数 concat 至少需要 1 个参数，写了 0 个（第1行第8列）',
        );
    });

    it('a constant argument a function cannot take', () => {
        expect(refusal('SELECT payload(\'xml\') AS p FROM "/a"').message).toBe(
            "函数 payload 的参数只能是 'json'（第1行第8列）",
        );
    });

    it('a CAST to a type a flow does not have, where the CAST is written', () => {
        expect(refusal('SELECT deviceName() AS d,\n  cast(a AS date) AS c FROM "/a"')).toEqual({
            message: '流转不支持转换为 DATE（第2行第3列）',
            line: 2,
            column: 3,
        });
    });

    it('other things a flow does not take: a FROM alias, t.*, IS with a value, FOR UPDATE', () => {
        expect(refusal('SELECT a FROM "/a" AS t').message).toBe('FROM 的主题不能起别名（第1行第15列）');
        expect(refusal('SELECT a.* FROM "/a"').message).toBe('* 只能单独作为一列（第1行第8列）');
        expect(refusal('SELECT a FROM "/a" WHERE a IS \'x\'').message).toBe(
            'IS 后只能是 NULL、TRUE 或 FALSE（第1行第26列）',
        );
        expect(refusal('SELECT a FROM "/a" FOR UPDATE').message).toBe('流转不支持 FOR UPDATE（第1行第20列）');
    });

    it('two columns of one name', () => {
        expect(refusal('SELECT 1 AS x, \'y\'   AS x FROM "/a"').message).toBe(
            '列名 x 重复，请用 AS 另起一个名字（第1行第16列）',
        );
        expect(refusal('SELECT params.a, items.a FROM "/a"').message).toBe(
            '列名 a 重复，请用 AS 另起一个名字（第1行第18列）',
        );
    });

    it('a subquery or an unsupported operator', () => {
        expect(refusal('SELECT a FROM "/a" WHERE a IN (SELECT b FROM "/b")').message).toBe(
            '流转不支持子查询（第1行第26列）',
        );
        expect(refusal('SELECT a FROM "/a" WHERE a REGEXP \'x\'').message).toBe(
            '流转不支持运算符 REGEXP（第1行第26列）',
        );
    });
});
