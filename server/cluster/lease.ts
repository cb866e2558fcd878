/**
 * Self-fencing (docs/deployment.md "Losing a process"): a member's membership is a lease it renews with each
 * heartbeat; the others declare it lost once its heartbeat is NODE_TIMEOUT old by the database's clock. A member
 * that has not renewed for half of that fences itself: it takes no devices and closes those it has, so they have
 * moved before any survivor marks them OFFLINE or takes its simulations and AMQP claims. It counts from when the
 * renewal was sent (the database's heartbeat is no earlier), on a monotonic clock that keeps running through a
 * SIGSTOP: a resumed process reads itself fenced at its first check, before its next timer runs.
 */

/** Milliseconds on a clock that only moves forward (performance.now()); a fake one in tests. */
export type Clock = () => number;

export const monotonic: Clock = () => performance.now();

export interface LeaseHooks {
    /** The lease ran out: stop taking devices and close those held. */
    onFenced?: () => void;
    /** Renewed again after a fence. */
    onUnfenced?: () => void;
}

export class Lease {
    /** When the last successful renewal was sent. */
    private renewedAt: number;
    private isFenced = false;
    private timer: NodeJS.Timeout | undefined;

    constructor(
        /** NODE_TIMEOUT (ms): the lease lasts half of it. */
        private readonly timeoutMs: number,
        private readonly hooks: LeaseHooks = {},
        private readonly clock: Clock = monotonic,
    ) {
        this.renewedAt = clock();
        this.arm();
    }

    /** How long a member may go without renewing before it fences (NODE_TIMEOUT / 2). */
    get lengthMs(): number {
        return Math.floor(this.timeoutMs / 2);
    }

    /** Whether the member is fenced now; a lease found run out fences at once (the check itself does it). */
    check(): boolean {
        if (!this.isFenced && this.clock() - this.renewedAt >= this.lengthMs) {
            this.isFenced = true;
            this.hooks.onFenced?.();
        }
        return this.isFenced;
    }

    /** A renewal sent at `sentAt` (clock time) succeeded: the lease runs from then, and a fence lifts. */
    renewed(sentAt: number): void {
        this.renewedAt = Math.max(this.renewedAt, sentAt);
        this.arm();
        if (this.isFenced && this.clock() - this.renewedAt < this.lengthMs) {
            this.isFenced = false;
            this.hooks.onUnfenced?.();
        }
    }

    /**
     * A timer at the lease's end, so a member whose heartbeat hangs fences on time without anyone asking. It checks
     * after the I/O phase that follows: a renewal answered while the event loop was busy is read first.
     */
    private arm(): void {
        clearTimeout(this.timer);
        const left = this.renewedAt + this.lengthMs - this.clock();
        this.timer = setTimeout(() => setImmediate(() => this.check()), Math.max(0, left));
        this.timer.unref();
    }

    stop(): void {
        clearTimeout(this.timer);
    }
}
