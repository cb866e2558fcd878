// The data-parsing sandbox's thread (server/scripts/sandbox.ts is the other side). A product's script runs here in
// QuickJS compiled to WebAssembly: it sees only the ECMAScript built-ins (no require, process, fetch, console or
// timers: the context is given nothing of the host), under a deadline (the interrupt handler), QuickJS's memory and
// stack limits, and exchanges data as JSON text only. Each run gets a fresh runtime and context, so one message's
// globals never reach another's. Plain JavaScript, so the sources (tsx) and the bundle (dist-server) start it alike.
//
// QuickJS polls its interrupt handler on loop back-edges only: a loop of large built-in calls (`new Array(1e6).fill(1)`)
// can outrun the deadline, so the main thread is the backstop and terminates this thread when an answer is late. And
// this build counts a large block as a few bytes against QuickJS's memory limit, so the WebAssembly memory itself is
// capped (a Memory with a maximum, given to the module): an allocation beyond it fails as QuickJS's out of memory.
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';

/** The script's own stack: deep enough for any decoder, shallow enough that runaway recursion ends quickly. */
const MAX_STACK_BYTES = 256 * 1024;

/** The longest JSON a run may answer: larger is no decoded device message. */
const MAX_OUTPUT_CHARS = 256 * 1024;

/**
 * Calls the named function with the arguments given as JSON text, and answers its result as JSON text, with the
 * built-in JSON captured before the script runs (a script that replaces JSON cannot fake the exchange). A typed array
 * answered (Uint8Array) becomes a plain array of its numbers.
 */
const RUNNER = `(function () {
    var parse = JSON.parse, stringify = JSON.stringify, isView = ArrayBuffer.isView, slice = Array.prototype.slice;
    return function (name, input) {
        var fn = globalThis[name];
        if (typeof fn !== 'function') throw new ReferenceError('NO_FUNCTION');
        var out = fn.apply(undefined, parse(input));
        if (out !== null && typeof out === 'object' && isView(out)) out = slice.call(out);
        return out === undefined ? 'undefined' : stringify(out);
    };
})()`;

const PAGE = 64 * 1024;
/** QuickJS's own start (16 MB, the build's initial memory) and twice a run's limit, for the allocator's slack. */
const MEMORY_PAGES = {
    initial: (16 * 1024 * 1024) / PAGE,
    maximum: ((32 + 2 * workerData.memoryMb) * 1024 * 1024) / PAGE,
};

const quickJs = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmMemory: new WebAssembly.Memory(MEMORY_PAGES) }),
);

function dumpError(vm, handle) {
    const dumped = vm.dump(handle);
    return dumped && typeof dumped === 'object' ? dumped : { message: String(dumped) };
}

/** Evaluates the runner and the script in `vm`, then calls the function: `{ text }` or `{ error }`. */
function callIn(vm, source, fnName, input) {
    const handles = [];
    const take = (h) => (handles.push(h), h);
    try {
        const runner = vm.evalCode(RUNNER, 'runner.js');
        if (runner.error) return { error: dumpError(vm, take(runner.error)) };
        take(runner.value);
        const loaded = vm.evalCode(source, 'script.js');
        if (loaded.error) return { error: dumpError(vm, take(loaded.error)) };
        take(loaded.value);
        const called = vm.callFunction(
            runner.value,
            vm.undefined,
            take(vm.newString(fnName)),
            take(vm.newString(input)),
        );
        if (called.error) return { error: dumpError(vm, take(called.error)) };
        const text = vm.getString(take(called.value));
        if (text.length > MAX_OUTPUT_CHARS) return { error: { message: 'OUTPUT_TOO_LARGE' } };
        return { text };
    } finally {
        for (const h of handles) if (h.alive) h.dispose();
    }
}

/** One run in a fresh runtime: `{ text }`, or `{ error, interrupted }`. */
function run({ source, fn, input, timeoutMs, memoryMb }) {
    const runtime = quickJs.newRuntime();
    const deadline = Date.now() + timeoutMs;
    let interrupted = false;
    runtime.setInterruptHandler(() => (interrupted ||= Date.now() > deadline));
    runtime.setMemoryLimit(memoryMb * 1024 * 1024);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    let context;
    try {
        context = runtime.newContext();
        const answer = callIn(context, source, fn, input);
        return 'error' in answer ? { ...answer, interrupted } : answer;
    } catch (err) {
        // QuickJS could not even make the context or a value: its memory limit, in practice.
        return { error: { message: String(err?.message ?? err) }, interrupted };
    } finally {
        context?.dispose();
        runtime.dispose();
    }
}

// The first runs compile QuickJS's code (V8 compiles WebAssembly functions on first call, then again optimised in the
// background): done here, with a pause for the background compiles, before the thread says it is ready, rather than
// inside the first messages' deadlines.
const WARM_UP = 'function f(b) { var o = {}; for (var i = 0; i < b.length; i++) o["k" + i] = b[i] * 2; return o; }';
for (let i = 0; i < 3; i++) run({ source: WARM_UP, fn: 'f', input: '[[1,2,3]]', timeoutMs: 5000, memoryMb: 16 });
await new Promise((resolve) => setTimeout(resolve, 300));

parentPort.on('message', (request) => {
    parentPort.postMessage({ id: request.id, ...run(request) });
});
parentPort.postMessage({ ready: true });
