/** A business failure: the error handler answers it in the family's envelope with this HTTP status. */
export class ApiError extends Error {
    readonly status: 400 | 404 | 409 | 413;
    constructor(status: 400 | 404 | 409 | 413, message: string) {
        super(message);
        this.name = 'ApiError';
        this.status = status;
    }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);
export const tooLarge = (message: string) => new ApiError(413, message);

/** PostgreSQL unique_violation (23505) on the named constraint, through Drizzle's error wrapper or not. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
    let e: unknown = err;
    for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
        const pgErr = e as { code?: unknown; constraint?: unknown; cause?: unknown };
        if (pgErr.code === '23505') return constraint === undefined || pgErr.constraint === constraint;
        e = pgErr.cause;
    }
    return false;
}

/** PostgreSQL foreign_key_violation (23503), through Drizzle's error wrapper or not. */
export function isForeignKeyViolation(err: unknown): boolean {
    let e: unknown = err;
    for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
        const pgErr = e as { code?: unknown; cause?: unknown };
        if (pgErr.code === '23503') return true;
        e = pgErr.cause;
    }
    return false;
}
