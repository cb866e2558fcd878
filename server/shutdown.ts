/**
 * A stopping process's steps (SIGTERM, SIGINT) under one deadline. Each step is bounded where it can be (the devices'
 * drain: server/mqtt/broker.ts), but closing the services that write (AMQP, rules, OTA, forwarding, the database) waits
 * on a database that may not answer: a stalled link holds a statement, a pool's end or the last commit for as long as
 * it lasts. Past STOP_TIMEOUT the process says which step it was in and exits 1, so a supervisor's restart is not left
 * waiting for its SIGKILL, and an operator reading the log knows what did not finish.
 */

/** What a step does, as the log names it: `停止数据流转` / `stopping forwarding`. */
export interface StepName {
    zh: string;
    en: string;
}

export interface StopStep extends StepName {
    run: () => unknown;
}

export interface Shutdown {
    /** Starts the deadline (the first signal). */
    begin(): void;
    /** Names the step running now, for the deadline's message (the drain before the steps). */
    enter(name: StepName): void;
    /** Runs the steps in order: one that fails is logged and the next runs. */
    run(steps: StopStep[]): Promise<void>;
}

export interface ShutdownOptions {
    timeoutMs: number;
    log: (line: string) => void;
    exit: (code: number) => void;
}

export function createShutdown(o: ShutdownOptions): Shutdown {
    let current: StepName = { zh: '开始停止', en: 'starting to stop' };
    let timer: NodeJS.Timeout | undefined;

    function expire() {
        const seconds = Math.round(o.timeoutMs / 1000);
        o.log(
            `停止超时（${seconds} 秒）：${current.zh}未完成，强制退出；请检查数据库等连接，或用 STOP_TIMEOUT 调整时限 / ` +
                `stop timed out after ${seconds} s ${current.en}: exiting`,
        );
        o.exit(1);
    }

    return {
        begin() {
            // Unreferenced: a process whose steps all finished exits without waiting for it.
            timer ??= setTimeout(expire, o.timeoutMs).unref();
        },
        enter(name) {
            current = name;
        },
        async run(steps) {
            for (const step of steps) {
                current = step;
                try {
                    await step.run();
                } catch (err) {
                    o.log(`${step.zh}失败 / ${step.en} failed: ${err instanceof Error ? err.message : String(err)}`);
                }
            }
            current = { zh: '退出', en: 'exiting' };
        },
    };
}
