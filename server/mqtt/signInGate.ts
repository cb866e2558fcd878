/**
 * Counts the connections that have not signed in yet (TCP or TLS accepted, no CONNACK or SASL outcome OK), so an
 * unauthenticated flood holds at most `total` of them at once (and `perAddress` from one address, when set). Each is
 * bounded in bytes by the framing limits and in time by the handshake timeout; this bounds their number.
 */

/** Connections not yet signed in a process holds at once: each may hold up to ~128 KB before it signs in. */
export const MAX_PENDING_SIGN_INS = 4096;

export interface SignInGateOptions {
    total?: number;
    /** Off by default: behind a proxy every connection comes from the proxy's address. */
    perAddress?: number;
}

export class SignInGate {
    private readonly byAddress = new Map<string, number>();
    private count = 0;
    readonly total: number;
    readonly perAddress: number;

    constructor(options: SignInGateOptions = {}) {
        this.total = options.total ?? MAX_PENDING_SIGN_INS;
        this.perAddress = options.perAddress ?? Infinity;
    }

    /** Connections waiting to sign in now. */
    get pending(): number {
        return this.count;
    }

    /** Counts a connection from `address`; answers the function that stops counting it, or undefined when full. */
    admit(address: string): (() => void) | undefined {
        const mine = this.byAddress.get(address) ?? 0;
        if (this.count >= this.total || mine >= this.perAddress) return undefined;
        this.count++;
        this.byAddress.set(address, mine + 1);
        let released = false;
        return () => {
            if (released) return;
            released = true;
            this.count--;
            const left = (this.byAddress.get(address) ?? 1) - 1;
            if (left > 0) this.byAddress.set(address, left);
            else this.byAddress.delete(address);
        };
    }
}
