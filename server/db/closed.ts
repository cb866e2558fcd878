/**
 * Whether `err` says the database was closed under a statement: PGlite's "closed", a pg client's "ended", a pg pool's
 * "Cannot use a pool after calling end on the pool". Background work that outlives its server (tests, shutdown) meets
 * these; they are not worth a stack trace, while anything else is logged.
 */
export function isClosedDatabaseError(err: unknown): boolean {
    return /closed|ended|after calling end/i.test(String((err as Error)?.message));
}
