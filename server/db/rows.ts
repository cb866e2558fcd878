/** The rows of a raw `db.execute(sql...)` answer: node-postgres answers { rows }, PGlite the same; drizzle passes either through. */
export function rowsOf<T>(result: unknown): T[] {
    return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
