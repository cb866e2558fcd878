/**
 * Slows down password guessing per username and per client address. Within a sliding window, once a key
 * has `threshold` failures it is locked for base × 2^(failures − threshold) seconds (capped), and a
 * locked key is refused before the password is even checked.
 */
export interface ThrottleOptions {
    windowMs: number;
    threshold: number;
    baseLockMs: number;
    maxLockMs: number;
}

interface Entry {
    failures: number[];
    lockedUntil: number;
}

export class LoginThrottle {
    private readonly entries = new Map<string, Entry>();
    constructor(private readonly options: ThrottleOptions) {}

    /** Milliseconds the key must still wait, 0 when it may try. */
    retryAfter(key: string, now: number): number {
        const entry = this.entries.get(key);
        return entry && entry.lockedUntil > now ? entry.lockedUntil - now : 0;
    }

    fail(key: string, now: number): void {
        const { windowMs, threshold, baseLockMs, maxLockMs } = this.options;
        const entry = this.entries.get(key) ?? { failures: [], lockedUntil: 0 };
        entry.failures = entry.failures.filter((t) => t > now - windowMs);
        entry.failures.push(now);
        const over = entry.failures.length - threshold;
        if (over >= 0) entry.lockedUntil = now + Math.min(maxLockMs, baseLockMs * 2 ** Math.min(over, 30));
        this.entries.set(key, entry);
        if (this.entries.size > 10_000) this.prune(now);
    }

    reset(key: string): void {
        this.entries.delete(key);
    }

    private prune(now: number): void {
        for (const [key, entry] of this.entries) {
            if (entry.lockedUntil <= now && entry.failures.every((t) => t <= now - this.options.windowMs)) {
                this.entries.delete(key);
            }
        }
    }
}

const FIFTEEN_MINUTES = 15 * 60 * 1000;

/** Five wrong passwords for one username in 15 minutes lock it for 30 s, then 60 s, 120 s ... up to 15 min. */
export const usernameThrottleDefaults: ThrottleOptions = {
    windowMs: FIFTEEN_MINUTES,
    threshold: 5,
    baseLockMs: 30_000,
    maxLockMs: FIFTEEN_MINUTES,
};

/** One address may try more names (an office behind one NAT), but not endlessly. */
export const ipThrottleDefaults: ThrottleOptions = { ...usernameThrottleDefaults, threshold: 20 };
