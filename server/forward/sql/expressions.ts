import { literalOf, offsetOf, type AstNode, type ExprList } from './ast';
import { errorAt, type FlowSqlError } from './errors';
import { FLOW_FUNCTIONS, type FlowFunction } from './functions';
import { compileBinary, compileUnary, negation, type OperatorScope } from './operators';
import type { PathSegment } from './prepare';
import type { Evaluator, FlowMessage } from './types';
import { atPath, child, compare, toBoolean, toNumber, toText, truth } from './values';

/** What compiling an expression needs from its statement. */
export interface ExpressionScope {
    /** The operator's text, for the positions of refusals. */
    sql: string;
    /** Payload paths the pre-processing replaced, by offset (prepare.ts). */
    paths: Map<number, PathSegment[]>;
    timeZone: string;
}

/**
 * Compiles one expression of the AST to a closure over the message, once: `run` walks no AST. `at` is the nearest
 * offset known above the node, for refusals of nodes the parser does not locate.
 */
export function compileExpression(node: AstNode, scope: ExpressionScope, at: number): Evaluator {
    const here = offsetOf(node) ?? at;
    const literal = literalOf(node);
    if (literal) {
        const value = literal[1];
        return () => value;
    }
    switch (node.type) {
        case 'column_ref':
            return compilePath(node, scope, here);
        case 'function':
            return compileFunction(node, scope, here);
        case 'aggr_func':
            throw errorAt(scope.sql, here, `流转不支持聚合函数 ${String(node.name)}`);
        case 'binary_expr':
            return compileBinary(node, operatorScope(scope, here));
        case 'unary_expr':
            return compileUnary(node, operatorScope(scope, here));
        case 'case':
            return compileCase(node, scope, here);
        case 'cast':
            return compileCast(node, scope, here);
        default:
            throw errorAt(scope.sql, here, '流转不支持此写法');
    }
}

function operatorScope(scope: ExpressionScope, here: number): OperatorScope {
    return {
        compile: (operand) => compileExpression(operand, scope, here),
        refuse: (reason, offset = here) => errorAt(scope.sql, offset, reason) as FlowSqlError,
    };
}

/** A payload path's keys and indexes: from the pre-processing when it replaced the path, else the parser's parts. */
export function pathOf(node: AstNode, scope: ExpressionScope): PathSegment[] {
    const offset = offsetOf(node);
    const replaced = offset === undefined ? undefined : scope.paths.get(offset);
    if (replaced && node.table == null && typeof node.column === 'string' && /^_+$/.test(node.column)) return replaced;
    return [node.db, node.table, node.column].filter((part) => part !== null && part !== undefined).map(partName);
}

function partName(part: unknown): string {
    if (typeof part === 'string') return part;
    const named = part as { value?: unknown; expr?: { value?: unknown } };
    return String(named.value ?? named.expr?.value);
}

function compilePath(node: AstNode, scope: ExpressionScope, here: number): Evaluator {
    const path = pathOf(node, scope);
    if (path.includes('*')) throw errorAt(scope.sql, here, '* 只能单独作为一列');
    if (path.length === 1) {
        const key = path[0];
        return (m) => child(m.payload, key);
    }
    return (m) => atPath(m.payload, path);
}

/** A function's name as written: `deviceName`, `json.parse`. */
export function functionName(node: AstNode): string {
    const name = node.name as { name?: Array<{ value: string }>; schema?: { value: string } } | string;
    if (typeof name === 'string') return name;
    const base = (name.name ?? []).map((n) => n.value).join('.');
    return name.schema ? `${name.schema.value}.${base}` : base;
}

function compileFunction(node: AstNode, scope: ExpressionScope, here: number): Evaluator {
    const name = functionName(node);
    const args = ((node.args as ExprList | undefined)?.value ?? []) as AstNode[];
    const compileArg = (arg: AstNode) => compileExpression(arg, scope, here);
    if (name.toLowerCase() === 'not' && args.length === 1) return negation(compileArg(args[0]));
    const fn = FLOW_FUNCTIONS.get(name.toLowerCase());
    if (!fn) throw errorAt(scope.sql, here, `未知函数 ${name}`);
    const problem = arityProblem(fn, args.length) ?? fn.check?.(args.map((a) => literalOf(a)?.[1]));
    if (problem) throw errorAt(scope.sql, here, `函数 ${name} ${problem}`);
    return caller(fn, args.map(compileArg), scope.timeZone);
}

function arityProblem(fn: FlowFunction, count: number): string | undefined {
    if (count >= fn.min && count <= fn.max) return undefined;
    const given = `写了 ${count} 个`;
    if (fn.max === 0) return `不需要参数，${given}`;
    if (fn.min === fn.max) return `需要 ${fn.min} 个参数，${given}`;
    if (fn.max === Infinity) return `至少需要 ${fn.min} 个参数，${given}`;
    return `需要 ${fn.min} 到 ${fn.max} 个参数，${given}`;
}

/** Calls `fn` with its arguments evaluated; the common arities without a map over the argument closures. */
function caller(fn: FlowFunction, args: Evaluator[], timeZone: string): Evaluator {
    const call = fn.call;
    if (args.length === 0) return (m) => call([], m, timeZone);
    if (args.length === 1) {
        const [a] = args;
        return (m) => call([a(m)], m, timeZone);
    }
    if (args.length === 2) {
        const [a, b] = args;
        return (m) => call([a(m), b(m)], m, timeZone);
    }
    return (m: FlowMessage) =>
        call(
            args.map((arg) => arg(m)),
            m,
            timeZone,
        );
}

interface CaseBranch {
    when: Evaluator;
    then: Evaluator;
}

/** CASE WHEN c THEN r ... ELSE e END, and CASE x WHEN v THEN r ... (x = v as the comparisons take it). */
function compileCase(node: AstNode, scope: ExpressionScope, here: number): Evaluator {
    const compile = (n: AstNode) => compileExpression(n, scope, here);
    const parts = node.args as Array<{ type: string; cond?: AstNode; result: AstNode }>;
    const branches: CaseBranch[] = parts
        .filter((p) => p.type === 'when')
        .map((p) => ({ when: compile(p.cond as AstNode), then: compile(p.result) }));
    const otherwisePart = parts.find((p) => p.type === 'else');
    const otherwise: Evaluator = otherwisePart ? compile(otherwisePart.result) : () => null;
    if (node.expr) {
        const subject = compile(node.expr as AstNode);
        return (m) => {
            const x = subject(m);
            for (const b of branches) if (compare(x, b.when(m)) === 0) return b.then(m);
            return otherwise(m);
        };
    }
    return (m) => {
        for (const b of branches) if (truth(b.when(m)) === true) return b.then(m);
        return otherwise(m);
    };
}

const toInteger = (value: unknown): number | null => {
    const n = toNumber(value);
    return n === null ? null : Math.trunc(n) + 0;
};

const CAST_TARGETS: Record<string, (value: unknown) => unknown> = {
    INT: toInteger,
    INTEGER: toInteger,
    SIGNED: toInteger,
    UNSIGNED: toInteger,
    BIGINT: toInteger,
    DOUBLE: toNumber,
    FLOAT: toNumber,
    DECIMAL: toNumber,
    NUMERIC: toNumber,
    CHAR: toText,
    VARCHAR: toText,
    TEXT: toText,
    BOOLEAN: toBoolean,
    BOOL: toBoolean,
};

/** CAST(x AS int | double | string | boolean), with MySQL's names of these (SIGNED, DECIMAL, CHAR, ...) too. */
function compileCast(node: AstNode, scope: ExpressionScope, here: number): Evaluator {
    const target = (node.target as Array<{ dataType: string }> | undefined)?.[0]?.dataType?.toUpperCase() ?? '';
    const convert = CAST_TARGETS[target];
    if (!convert) throw errorAt(scope.sql, here, `流转不支持转换为 ${target}`);
    const operand = compileExpression(node.expr as AstNode, scope, here);
    return (m) => convert(operand(m));
}
