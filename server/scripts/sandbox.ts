import { Worker } from 'node:worker_threads';
import { fromRoot } from '../paths';

/**
 * Runs products' data-parsing scripts in QuickJS (quickjs-emscripten) on a thread of its own
 * (server/scripts/sandboxWorker.mjs): the script has no I/O, a CPU deadline, memory and stack limits, and the message
 * path only awaits an answer, so a script never blocks the process. Runs queue one at a time on the thread; its
 * WebAssembly memory is capped at twice the run's limit plus QuickJS's own 32 MB. An answer later than the deadline
 * plus a grace ends the thread (terminate() stops any run, however it loops) and the run fails as timed out; a thread
 * whose run was interrupted or ran out of memory is replaced too, so the next run starts on a clean heap.
 */

export interface ScriptLimits {
    /** The longest a run may take, ms (SCRIPT_TIMEOUT_MS). */
    timeoutMs: number;
    /** The most memory a run may allocate, MB (SCRIPT_MEMORY_MB). */
    memoryMb: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = { timeoutMs: 100, memoryMb: 16 };

export type RunOutcome = { ok: true; value: unknown } | { ok: false; error: string };

const WORKER_FILE = fromRoot('server', 'scripts', 'sandboxWorker.mjs');

/** Beyond the deadline, how long the thread may take to answer before it is ended (a run QuickJS cannot interrupt). */
const GRACE_MS = 150;

/** Runs waiting at most: beyond, a run is refused at once rather than queued behind a slow script. */
const MAX_QUEUED = 500;

interface ScriptError {
    name?: string;
    message?: string;
}

interface WorkerAnswer {
    id: number;
    text?: string;
    error?: ScriptError;
    interrupted?: boolean;
}

interface Job {
    id: number;
    source: string;
    fn: string;
    input: string;
    resolve: (o: RunOutcome) => void;
}

/** The Chinese reason of a failed run. */
export function failureReason(error: ScriptError, interrupted: boolean, limits: ScriptLimits): string {
    const message = String(error.message ?? '');
    if (interrupted || message === 'interrupted') return timedOut(limits);
    if (/out of memory/i.test(message)) return `脚本内存超出限制（${limits.memoryMb} MB）`;
    if (/stack overflow|call stack size/i.test(message)) return '脚本调用栈溢出（递归过深）';
    if (message === 'NO_FUNCTION') return '脚本中未定义该函数';
    if (message === 'OUTPUT_TOO_LARGE') return '脚本返回的数据超过 256 KB';
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    return `脚本执行出错：${name}${message}`.slice(0, 500);
}

const timedOut = (limits: ScriptLimits) => `脚本执行超时（超过 ${limits.timeoutMs} 毫秒）`;

/** A thread that runs scripts under `limits`, started on first use. */
export function createSandbox(limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS) {
    const queue: Job[] = [];
    let worker: Promise<Worker> | undefined;
    let busy = false;
    let nextId = 1;

    function start(): Promise<Worker> {
        const w = new Worker(WORKER_FILE, {
            workerData: { memoryMb: limits.memoryMb },
            resourceLimits: { maxOldGenerationSizeMb: 64 },
        });
        // The sandbox must not keep a server (or a test run) alive.
        w.unref();
        return new Promise((resolve, reject) => {
            w.once('message', () => resolve(w));
            w.once('error', reject);
            w.once('exit', () => reject(new Error('脚本沙箱线程启动失败')));
        });
    }

    function end(w: Promise<Worker>) {
        if (worker === w) worker = undefined;
        void w.then((t) => t.terminate()).catch(() => undefined);
    }

    async function runNext(): Promise<void> {
        const job = queue.shift();
        if (!job) return void (busy = false);
        busy = true;
        const current = (worker ??= start());
        let outcome: RunOutcome;
        try {
            outcome = await answerOf(await current, job, () => end(current));
        } catch (err) {
            end(current);
            outcome = { ok: false, error: `脚本沙箱不可用：${String(err)}` };
        }
        job.resolve(outcome);
        return runNext();
    }

    /** Sends the job and waits for its answer or the deadline; `recycle` ends a thread that must not run again. */
    function answerOf(w: Worker, job: Job, recycle: () => void): Promise<RunOutcome> {
        return new Promise((resolve) => {
            const timer = setTimeout(() => {
                w.off('message', onMessage);
                recycle();
                resolve({ ok: false, error: timedOut(limits) });
            }, limits.timeoutMs + GRACE_MS);
            const onMessage = (m: WorkerAnswer) => {
                if (m.id !== job.id) return;
                clearTimeout(timer);
                w.off('message', onMessage);
                if (m.error) {
                    const error = failureReason(m.error, Boolean(m.interrupted), limits);
                    if (m.interrupted || /内存/.test(error)) recycle();
                    return resolve({ ok: false, error });
                }
                resolve({ ok: true, value: m.text === 'undefined' ? undefined : (JSON.parse(m.text!) as unknown) });
            };
            w.on('message', onMessage);
            w.postMessage({ id: job.id, source: job.source, fn: job.fn, input: job.input, ...limits });
        });
    }

    return {
        limits,
        /** `fn(...args)` of `source` (the arguments and the answer as JSON): the answer, or why there is none. */
        run(source: string, fn: string, args: unknown[]): Promise<RunOutcome> {
            if (queue.length >= MAX_QUEUED)
                return Promise.resolve({ ok: false, error: '数据解析脚本排队过多，请稍后再试' });
            return new Promise((resolve) => {
                queue.push({ id: nextId++, source, fn, input: JSON.stringify(args), resolve });
                if (!busy) void runNext();
            });
        },
        /** Ends the thread (a test's or a server's close). */
        close() {
            if (worker) end(worker);
        },
    };
}

export type Sandbox = ReturnType<typeof createSandbox>;

const shared = new Map<string, Sandbox>();

/** The process's sandbox of these limits (one thread for the broker and the API alike). */
export function sandboxFor(limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS): Sandbox {
    const key = `${limits.timeoutMs}/${limits.memoryMb}`;
    let s = shared.get(key);
    if (!s) shared.set(key, (s = createSandbox(limits)));
    return s;
}
