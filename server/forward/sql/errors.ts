/** A flow's SQL refused at compile time: a Chinese reason and where in the operator's text (1-based line and column). */
export class FlowSqlError extends Error {
    readonly line: number;
    readonly column: number;
    /** The reason without the position. */
    readonly reason: string;

    constructor(reason: string, line: number, column: number) {
        super(`${reason}（第${line}行第${column}列）`);
        this.name = 'FlowSqlError';
        this.reason = reason;
        this.line = line;
        this.column = column;
    }
}

/** Answers the 1-based line and column of a character offset in `text` (lines end at \n; a column counts UTF-16 units). */
export function positionAt(text: string, offset: number): { line: number; column: number } {
    let line = 1;
    let lineStart = 0;
    const end = Math.min(Math.max(offset, 0), text.length);
    for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
        line++;
        lineStart = i + 1;
    }
    return { line, column: end - lineStart + 1 };
}

/** A refusal at a character offset of the operator's text. */
export function errorAt(text: string, offset: number, reason: string): FlowSqlError {
    const { line, column } = positionAt(text, offset);
    return new FlowSqlError(reason, line, column);
}
