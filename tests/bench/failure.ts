import type { Figure } from './run';

/** A group whose run broke an invariant (tests/bench/soak.ts): its figures are still printed and kept; the run fails. */
export class BenchFailure extends Error {
    constructor(
        message: string,
        readonly figures: Figure[],
    ) {
        super(message);
    }
}
