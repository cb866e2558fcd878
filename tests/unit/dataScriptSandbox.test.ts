import { afterAll, describe, expect, it } from 'vitest';
import { asBytes, protocolToRawData, rawDataToProtocol, transformPayload } from '../../server/scripts/calls';
import { createSandbox } from '../../server/scripts/sandbox';
import { DEFAULT_SCRIPT } from '../../server/scripts/template';

/**
 * The data-parsing sandbox (server/scripts/sandbox.ts, sandboxWorker.mjs): Alibaba's template converts its documented
 * examples; a script that throws, loops, recurses or allocates without end fails with its Chinese reason and the
 * host's thread keeps running meanwhile; the script reaches nothing of the host; answers are checked for shape.
 */

const sandbox = createSandbox({ timeoutMs: 100, memoryMb: 16 });
// Each failure below restarts the sandbox's thread (a fresh QuickJS runtime): seconds on a loaded machine, beyond the
// unit project's 5 s per test. What ends a run is asserted from its answer, not from the time taken.
const RESTARTS_MS = 60_000;
afterAll(() => sandbox.close());

/** Runs `fn` while counting this thread's timer ticks: a blocked event loop would count none. */
async function ticking<T>(fn: () => Promise<T>): Promise<{ result: T; ticks: number; ms: number }> {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    try {
        const result = await fn();
        return { result, ticks, ms: performance.now() - started };
    } finally {
        clearInterval(timer);
    }
}

const f = (body: string) => `function f(b) { ${body} }`;

describe("Alibaba's template", () => {
    it('converts the documented report, property set and custom-topic examples', async () => {
        const report = Buffer.from('000000000100320100000000', 'hex');
        expect(await rawDataToProtocol(sandbox, DEFAULT_SCRIPT, report)).toEqual({
            ok: true,
            value: {
                method: 'thing.event.property.post',
                version: '1.0',
                id: '1',
                params: { prop_int16: 50, prop_bool: 1, prop_float: 0 },
            },
        });
        const set = {
            method: 'thing.service.property.set',
            id: '12345',
            version: '1.0',
            params: { prop_float: 123.452, prop_int16: 333, prop_bool: 1 },
        };
        const bytes = await protocolToRawData(sandbox, DEFAULT_SCRIPT, set);
        expect(bytes.ok && bytes.value.toString('hex')).toBe('0100003039014d0142f6e76d');
        const topic = '/a1/dev/user/update';
        expect(await transformPayload(sandbox, DEFAULT_SCRIPT, topic, report)).toEqual({
            ok: true,
            value: { topic, prop_int16: 50, prop_bool: 1, prop_float: 0 },
        });
    });
});

describe('failures', () => {
    it('a script that throws: its message, in Chinese', async () => {
        expect(await sandbox.run(f("throw new Error('帧头错误');"), 'f', [[1]])).toEqual({
            ok: false,
            error: '脚本执行出错：帧头错误',
        });
        expect(await sandbox.run('function f( {', 'f', [])).toMatchObject({
            error: expect.stringMatching(/SyntaxError/),
        });
    });

    it(
        'an endless loop is stopped at the deadline, the host thread running meanwhile',
        async () => {
            const { result, ticks, ms } = await ticking(() => sandbox.run(f('while (true) {}'), 'f', [[1]]));
            expect(result).toEqual({ ok: false, error: '脚本执行超时（超过 100 毫秒）' });
            expect(ticks).toBeGreaterThan(0);
            // Not a speed target: proof that the deadline, not the loop, ended the run (the thread's start included).
            expect(ms).toBeLessThan(10_000);
        },
        RESTARTS_MS,
    );

    it(
        'a loop of large built-in calls, which QuickJS polls too rarely, is ended by terminating its thread',
        async () => {
            // QuickJS asks its interrupt handler every 10,000 loop turns: here, some 50 s of fills. The thread is ended
            // at the deadline plus its grace instead.
            const { result, ticks, ms } = await ticking(() =>
                sandbox.run(f('while (true) new Array(1000000).fill(1);'), 'f', [[1]]),
            );
            expect(ms).toBeLessThan(10_000);
            expect(result).toEqual({ ok: false, error: '脚本执行超时（超过 100 毫秒）' });
            expect(ticks).toBeGreaterThan(0);
            // The next run gets a fresh thread and works.
            expect(await sandbox.run(f('return b.length;'), 'f', [[1, 2]])).toEqual({ ok: true, value: 2 });
        },
        RESTARTS_MS,
    );

    it(
        'memory bombs, of small objects or large blocks, are refused by the memory limit',
        async () => {
            // A long deadline, so the memory limit is what ends them.
            const roomy = createSandbox({ timeoutMs: 5_000, memoryMb: 4 });
            try {
                for (const bomb of [
                    'var a = []; for (;;) a.push({ x: a.length, y: [1, 2, 3] });',
                    'var a = []; for (;;) a.push(new Array(100000).fill(1));',
                    'var a = []; for (;;) a.push(new ArrayBuffer(1000000));',
                ]) {
                    const { result, ticks } = await ticking(() => roomy.run(f(bomb), 'f', [[]]));
                    expect(result, bomb).toEqual({ ok: false, error: '脚本内存超出限制（4 MB）' });
                    expect(ticks).toBeGreaterThan(0);
                }
                expect(await roomy.run(f('return b.length;'), 'f', [[1, 2, 3]])).toEqual({ ok: true, value: 3 });
            } finally {
                roomy.close();
            }
        },
        RESTARTS_MS,
    );

    it('runaway recursion: a stack overflow', async () => {
        expect(await sandbox.run('function f(b) { return f(b) + 1; }', 'f', [[1]])).toEqual({
            ok: false,
            error: '脚本调用栈溢出（递归过深）',
        });
    });

    it('a function the script lacks is named', async () => {
        expect(await rawDataToProtocol(sandbox, 'var x = 1;', Buffer.from([1]))).toEqual({
            ok: false,
            error: '脚本中未定义 rawDataToProtocol 函数',
        });
    });
});

describe('isolation', () => {
    it('reaches nothing of the host: no require, process, fetch, console, timers or imports', async () => {
        const probe = f(
            'return [typeof require, typeof process, typeof fetch, typeof console, typeof setTimeout, typeof module, typeof globalThis.Deno, typeof XMLHttpRequest];',
        );
        expect(await sandbox.run(probe, 'f', [[]])).toEqual({ ok: true, value: Array(8).fill('undefined') });
        const imported = await sandbox.run("import fs from 'node:fs'; function f() { return 1; }", 'f', []);
        expect(imported.ok).toBe(false);
    });

    it('keeps nothing between runs: each message gets a fresh context', async () => {
        const counter =
            'var n = (typeof n === "number" ? n : 0); function f() { globalThis.seen = (globalThis.seen || 0) + 1; return globalThis.seen; }';
        expect(await sandbox.run(counter, 'f', [])).toEqual({ ok: true, value: 1 });
        expect(await sandbox.run(counter, 'f', [])).toEqual({ ok: true, value: 1 });
    });

    it('a script that replaces JSON cannot fake its answer', async () => {
        const script = 'JSON.stringify = function () { return "[999]"; }; function f() { return [1]; }';
        expect(await sandbox.run(script, 'f', [])).toEqual({ ok: true, value: [1] });
    });
});

describe('answers', () => {
    it('bytes: a Uint8Array becomes its numbers; anything but integers 0-255 is refused', async () => {
        expect(await sandbox.run(f('return new Uint8Array([1, 255]);'), 'f', [[]])).toEqual({
            ok: true,
            value: [1, 255],
        });
        expect(asBytes('protocolToRawData', [0, 255]).ok).toBe(true);
        expect(asBytes('protocolToRawData', [0, 256])).toEqual({
            ok: false,
            error: 'protocolToRawData 返回的第 2 个元素 256 不是 0~255 的整数',
        });
        expect(asBytes('protocolToRawData', [1.5]).ok).toBe(false);
        expect(asBytes('protocolToRawData', ['1']).ok).toBe(false);
        expect(asBytes('protocolToRawData', { 0: 1 })).toEqual({
            ok: false,
            error: 'protocolToRawData 应返回字节数组',
        });
    });

    it('JSON: rawDataToProtocol must answer an object', async () => {
        const arrayScript = 'function rawDataToProtocol(b) { return b; }';
        expect(await rawDataToProtocol(sandbox, arrayScript, Buffer.from([1]))).toEqual({
            ok: false,
            error: 'rawDataToProtocol 应返回 JSON 对象',
        });
        const nothing = 'function rawDataToProtocol(b) {}';
        expect(await rawDataToProtocol(sandbox, nothing, Buffer.from([1]))).toEqual({
            ok: false,
            error: 'rawDataToProtocol 未返回数据',
        });
    });
});
