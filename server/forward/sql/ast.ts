/**
 * The parts of node-sql-parser's AST (MySQL grammar) a flow compiles, loosely typed: the package's own types describe
 * neither every node it makes (unary_expr, bigint) nor their locations on all of them.
 */
export interface AstNode {
    type: string;
    loc?: { start: { offset: number; line: number; column: number } };
    [key: string]: unknown;
}

export interface ExprList extends AstNode {
    type: 'expr_list';
    value: AstNode[];
}

/** The node's offset in the text, when the parser recorded one (literals, CASE and CAST have none). */
export function offsetOf(node: unknown): number | undefined {
    return (node as AstNode | null | undefined)?.loc?.start.offset;
}

/** A literal's value: [true, value] for strings, numbers, booleans and NULL, else undefined. */
export function literalOf(node: AstNode): [true, unknown] | undefined {
    switch (node.type) {
        case 'number':
        case 'bigint':
            return [true, Number(node.value)];
        case 'single_quote_string':
            return [true, unescapeString(String(node.value), "'")];
        case 'double_quote_string':
            return [true, unescapeString(String(node.value), '"')];
        case 'bool':
        case 'boolean':
            return [true, Boolean(node.value)];
        case 'null':
            return [true, null];
        default:
            return undefined;
    }
}

const ESCAPES: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a' };

/**
 * A string literal's text as MySQL reads it (the parser leaves the escapes as written): a doubled quote is one, a
 * backslash escapes the next character, except that `\%` and `\_` stay as they are for LIKE to read.
 */
export function unescapeString(raw: string, quote: "'" | '"'): string {
    const pattern = quote === "'" ? /\\([\s\S])|''/g : /\\([\s\S])|""/g;
    return raw.replace(pattern, (all, escaped: string | undefined) => {
        if (escaped === undefined) return quote;
        if (escaped === '%' || escaped === '_') return all;
        return ESCAPES[escaped] ?? escaped;
    });
}
