/**
 * Pre-processing of a flow's text before node-sql-parser reads it (MySQL grammar). Every rewrite keeps each character
 * at its offset (same length, line breaks untouched), so the parser's locations, and so the refusals' line and column,
 * point at the operator's own text:
 *
 * - A payload path of two or more segments (`items.Temperature.value`, `params.Tags[0]`, `` `a b`.c ``) becomes one
 *   identifier of underscores as long as the path. The grammar takes at most `db.table.column` and no `[n]`, while
 *   Alibaba's rule SQL reads paths of any depth; the path's segments are kept here by offset and the compiler finds
 *   them again from the identifier's location.
 * - `CAST(x AS string)` becomes `CAST(x AS CHAR  )`: the grammar knows CHAR, not string.
 *
 * The grammar takes Alibaba's `FROM "/sys/+/+/thing/event/property/post"` as it is (a quoted table name); the scan
 * notes where FROM's target starts and the topic as written, since a flow's FROM must be one quoted topic filter. It
 * also notes where each column of the SELECT list starts: the parser locates neither literals nor CAST nor CASE.
 */

export type PathSegment = string | number;

export interface PreparedSql {
    /** The text the parser reads: the operator's, rewritten in place. */
    text: string;
    /** The payload paths the parser sees as one identifier, by the identifier's offset. */
    paths: Map<number, PathSegment[]>;
    /** The first FROM's target: its offset, and the topic when it is a quoted string (else null). */
    from?: { offset: number; topic: string | null };
    /** Where each item of the outer SELECT list starts. */
    columnOffsets: number[];
    /** Words outside strings and paths (upper case) with their offsets: where a refused clause starts. */
    words: Array<{ word: string; offset: number }>;
    /** Nothing but white space and comments. */
    empty: boolean;
}

type Token = { kind: 'word'; word: string } | { kind: 'punct'; char: string } | { kind: 'other' };

const IDENT_START = /[A-Za-z_$\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const FROM_CLAUSE_ENDS = new Set(['WHERE', 'ON', 'USING', 'GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'SELECT']);

class Scanner {
    readonly chars: string[];
    readonly paths = new Map<number, PathSegment[]>();
    readonly words: Array<{ word: string; offset: number }> = [];
    from?: { offset: number; topic: string | null };
    empty = true;
    readonly columnOffsets: number[] = [];
    private prev: Token = { kind: 'other' };
    private inFromList = false;
    private awaitingFrom = false;
    /** Parentheses open at this point: only the outer statement's SELECT list and FROM are noted. */
    private depth = 0;
    private selectList: 'before' | 'awaiting' | 'in' | 'after' = 'before';

    constructor(readonly sql: string) {
        // UTF-16 units, as the parser's offsets count them.
        this.chars = sql.split('');
    }

    scan(): void {
        let i = 0;
        while (i < this.sql.length) i = this.step(i);
    }

    private step(i: number): number {
        const s = this.sql;
        const c = s[i];
        if (/\s/.test(c)) return i + 1;
        const comment = commentEnd(s, i);
        if (comment !== undefined) return comment;
        this.empty = false;
        if (c === "'" || c === '"') return this.quoted(i, c);
        if (c === '`' || IDENT_START.test(c)) return this.path(i);
        if (/[0-9]/.test(c)) return this.number(i);
        this.token(i, { kind: 'punct', char: c });
        return i + 1;
    }

    /** Records the token that starts at `offset`: the FROM target, the FROM list state, the word list. */
    private token(offset: number, token: Token, topic: string | null = null): void {
        if (this.awaitingFrom) {
            this.from = { offset, topic };
            this.awaitingFrom = false;
        }
        if (token.kind === 'word') this.noteWord(token.word, offset);
        this.noteColumn(offset, token);
        if (token.kind === 'punct' && token.char === '(') this.depth++;
        if (token.kind === 'punct' && token.char === ')') this.depth--;
        this.prev = token;
    }

    private noteWord(word: string, offset: number): void {
        this.words.push({ word, offset });
        if (word === 'FROM' || word === 'JOIN') this.inFromList = true;
        else if (FROM_CLAUSE_ENDS.has(word)) this.inFromList = false;
        if (word === 'FROM' && this.depth === 0 && !this.from) this.awaitingFrom = true;
    }

    /** Notes the start of the outer SELECT list's items: after SELECT, after each comma at its level, until FROM. */
    private noteColumn(offset: number, token: Token): void {
        if (this.depth !== 0) return;
        const word = token.kind === 'word' ? token.word : undefined;
        if (this.selectList === 'before' && word === 'SELECT') this.selectList = 'awaiting';
        else if (this.selectList === 'awaiting' && word !== 'DISTINCT' && word !== 'ALL') {
            this.columnOffsets.push(offset);
            this.selectList = 'in';
        } else if (this.selectList === 'in' && word === 'FROM') this.selectList = 'after';
        else if (this.selectList === 'in' && token.kind === 'punct' && token.char === ',') this.selectList = 'awaiting';
    }

    private quoted(i: number, quote: string): number {
        const end = quotedEnd(this.sql, i, quote);
        const content = this.sql.slice(i + 1, end - 1);
        const closed = end <= this.sql.length && this.sql[end - 1] === quote && end - i >= 2;
        this.token(i, { kind: 'other' }, closed && this.isTopicPlace() ? content : null);
        return end;
    }

    /** Whether a quoted text here names a table: after FROM, JOIN, or a comma of a FROM list. */
    private isTopicPlace(): boolean {
        const p = this.prev;
        if (!this.inFromList) return false;
        return (
            (p.kind === 'word' && (p.word === 'FROM' || p.word === 'JOIN')) || (p.kind === 'punct' && p.char === ',')
        );
    }

    private path(i: number): number {
        const segments: PathSegment[] = [];
        let j = i;
        for (;;) {
            const segment = readSegment(this.sql, j);
            if (!segment) break;
            segments.push(segment.value);
            j = segment.end;
            if (
                this.sql[j] === '.' &&
                this.sql[j + 1] !== undefined &&
                /[`A-Za-z_$\u0080-\uffff]/.test(this.sql[j + 1])
            ) {
                j++;
                continue;
            }
            if (this.sql[j] !== '[') break;
        }
        if (segments.length === 1 && this.sql[i] !== '`') this.word(i, j, String(segments[0]));
        else if (segments.length > 1 && !followedByParen(this.sql, j)) this.placeholder(i, j, segments);
        else
            this.token(i, { kind: 'other' }, this.isTopicPlace() && segments.length === 1 ? String(segments[0]) : null);
        return Math.max(j, i + 1);
    }

    private word(start: number, end: number, word: string): void {
        const upper = word.toUpperCase();
        if (
            upper === 'STRING' &&
            this.prev.kind === 'word' &&
            this.prev.word === 'AS' &&
            nextChar(this.sql, end) === ')'
        ) {
            'CHAR  '.split('').forEach((ch, k) => (this.chars[start + k] = ch));
        }
        this.token(start, { kind: 'word', word: upper });
    }

    private placeholder(start: number, end: number, segments: PathSegment[]): void {
        for (let k = start; k < end; k++) this.chars[k] = '_';
        this.paths.set(start, segments);
        this.token(start, { kind: 'other' });
    }

    private number(i: number): number {
        let j = i;
        while (j < this.sql.length && /[0-9A-Za-z_.]/.test(this.sql[j])) j++;
        this.token(i, { kind: 'other' });
        return j;
    }
}

/** Reads one path segment at `i`: an identifier, a back-quoted name, or an index `[n]`. */
function readSegment(s: string, i: number): { value: PathSegment; end: number } | undefined {
    if (s[i] === '`') {
        const end = quotedEnd(s, i, '`');
        if (s[end - 1] !== '`' || end - i < 2) return undefined;
        return { value: s.slice(i + 1, end - 1).replaceAll('``', '`'), end };
    }
    if (s[i] === '[') {
        const m = /^\[\s*(\d+)\s*\]/.exec(s.slice(i, i + 24));
        return m ? { value: Number(m[1]), end: i + m[0].length } : undefined;
    }
    if (!IDENT_START.test(s[i] ?? '')) return undefined;
    let j = i + 1;
    while (j < s.length && IDENT_PART.test(s[j])) j++;
    return { value: s.slice(i, j), end: j };
}

/** The offset after the quoted text that starts at `i` (after its closing quote; the text's end when unclosed). */
function quotedEnd(s: string, i: number, quote: string): number {
    let j = i + 1;
    while (j < s.length) {
        if (s[j] === '\\' && quote !== '`') j += 2;
        else if (s[j] === quote && s[j + 1] === quote) j += 2;
        else if (s[j] === quote) return j + 1;
        else j++;
    }
    return s.length;
}

/** The offset after a comment that starts at `i` (MySQL's `#`, `-- `, `/* *\/`), or undefined when none starts. */
function commentEnd(s: string, i: number): number | undefined {
    if (s[i] === '#' || (s[i] === '-' && s[i + 1] === '-' && (i + 2 >= s.length || /\s/.test(s[i + 2])))) {
        const eol = s.indexOf('\n', i);
        return eol === -1 ? s.length : eol;
    }
    if (s[i] === '/' && s[i + 1] === '*') {
        const close = s.indexOf('*/', i + 2);
        return close === -1 ? s.length : close + 2;
    }
    return undefined;
}

function nextChar(s: string, i: number): string | undefined {
    let j = i;
    while (j < s.length && /\s/.test(s[j])) j++;
    return s[j];
}

function followedByParen(s: string, i: number): boolean {
    return nextChar(s, i) === '(';
}

/** The operator's text made readable to the grammar, with what the rewrites took out of it. */
export function prepareSql(sql: string): PreparedSql {
    const scanner = new Scanner(sql);
    scanner.scan();
    return {
        text: scanner.chars.join(''),
        paths: scanner.paths,
        from: scanner.from,
        columnOffsets: scanner.columnOffsets,
        words: scanner.words,
        empty: scanner.empty,
    };
}
