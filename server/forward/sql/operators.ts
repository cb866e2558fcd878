import type { AstNode, ExprList } from './ast';
import { literalOf } from './ast';
import type { FlowSqlError } from './errors';
import type { Evaluator } from './types';
import { and, compare, finite, isNumber, not, or, toText, truth } from './values';

/** Compiles an operand; refuses with a reason at the operator's position. */
export interface OperatorScope {
    compile: (node: AstNode) => Evaluator;
    refuse: (reason: string, offset?: number) => FlowSqlError;
}

const COMPARISONS: Record<string, (order: number) => boolean> = {
    '=': (c) => c === 0,
    '<>': (c) => c !== 0,
    '!=': (c) => c !== 0,
    '<': (c) => c < 0,
    '<=': (c) => c <= 0,
    '>': (c) => c > 0,
    '>=': (c) => c >= 0,
};

const ARITHMETIC: Record<string, (a: number, b: number) => number | null> = {
    '+': (a, b) => a + b,
    '-': (a, b) => a - b,
    '*': (a, b) => a * b,
    '/': (a, b) => (b === 0 ? null : a / b),
    '%': (a, b) => (b === 0 ? null : a % b),
    MOD: (a, b) => (b === 0 ? null : a % b),
    DIV: (a, b) => (b === 0 ? null : Math.trunc(a / b)),
};

/** A binary_expr: comparison, logic, arithmetic, ||, IN, LIKE, BETWEEN, IS. */
export function compileBinary(node: AstNode, scope: OperatorScope): Evaluator {
    const operator = String(node.operator).toUpperCase();
    const left = node.left as AstNode;
    const right = node.right as AstNode;
    if (operator === 'IN' || operator === 'NOT IN') return negatedIf(operator !== 'IN', compileIn(left, right, scope));
    if (operator === 'BETWEEN' || operator === 'NOT BETWEEN') {
        return negatedIf(operator !== 'BETWEEN', compileBetween(left, right, scope));
    }
    if (operator === 'IS' || operator === 'IS NOT') return compileIs(operator === 'IS NOT', left, right, scope);
    if (operator === 'LIKE' || operator === 'NOT LIKE') {
        return negatedIf(operator !== 'LIKE', compileLike(left, right, scope));
    }
    const a = scope.compile(left);
    const b = scope.compile(right);
    if (operator in COMPARISONS) return comparison(COMPARISONS[operator], a, b);
    if (operator in ARITHMETIC) return arithmetic(ARITHMETIC[operator], a, b);
    if (operator === 'AND') return conjunction(a, b);
    if (operator === 'OR') return disjunction(a, b);
    if (operator === '||') return concatenation(a, b);
    throw scope.refuse(`流转不支持运算符 ${operator}`);
}

/** A unary_expr: -x, +x, NOT x, !x. */
export function compileUnary(node: AstNode, scope: OperatorScope): Evaluator {
    const operator = String(node.operator).toUpperCase();
    const operand = scope.compile(node.expr as AstNode);
    if (operator === '-')
        return (m) => {
            const v = operand(m);
            return isNumber(v) ? -v : null;
        };
    if (operator === '+')
        return (m) => {
            const v = operand(m);
            return isNumber(v) ? v : null;
        };
    if (operator === 'NOT' || operator === '!') return negation(operand);
    throw scope.refuse(`流转不支持运算符 ${operator}`);
}

export function negation(operand: Evaluator): Evaluator {
    return (m) => not(truth(operand(m)));
}

function negatedIf(negate: boolean, evaluator: Evaluator): Evaluator {
    return negate ? negation(evaluator) : evaluator;
}

function comparison(test: (order: number) => boolean, a: Evaluator, b: Evaluator): Evaluator {
    return (m) => {
        const order = compare(a(m), b(m));
        return order === null ? null : test(order);
    };
}

function arithmetic(op: (a: number, b: number) => number | null, a: Evaluator, b: Evaluator): Evaluator {
    return (m) => {
        const x = a(m);
        const y = b(m);
        if (!isNumber(x) || !isNumber(y)) return null;
        const result = op(x, y);
        return result === null ? null : finite(result);
    };
}

function conjunction(a: Evaluator, b: Evaluator): Evaluator {
    return (m) => {
        const x = truth(a(m));
        return x === false ? false : and(x, truth(b(m)));
    };
}

function disjunction(a: Evaluator, b: Evaluator): Evaluator {
    return (m) => {
        const x = truth(a(m));
        return x === true ? true : or(x, truth(b(m)));
    };
}

function concatenation(a: Evaluator, b: Evaluator): Evaluator {
    return (m) => {
        const x = toText(a(m));
        const y = x === null ? null : toText(b(m));
        return x === null || y === null ? null : x + y;
    };
}

/** The items of an IN list or a BETWEEN's bounds; refuses a subquery. */
function listItems(node: AstNode, scope: OperatorScope): AstNode[] {
    const items = node.type === 'expr_list' ? (node as ExprList).value : undefined;
    if (!items) throw scope.refuse('流转不支持此写法');
    if (items.some((item) => 'ast' in item)) throw scope.refuse('流转不支持子查询');
    return items;
}

/** x IN (a, b, ...): TRUE when one equals x, else NULL when a comparison was NULL, else FALSE. */
function compileIn(left: AstNode, right: AstNode, scope: OperatorScope): Evaluator {
    const subject = scope.compile(left);
    const items = listItems(right, scope).map((item) => scope.compile(item));
    return (m) => {
        const x = subject(m);
        if (x === null) return null;
        let unknown = false;
        for (const item of items) {
            const order = compare(x, item(m));
            if (order === 0) return true;
            if (order === null) unknown = true;
        }
        return unknown ? null : false;
    };
}

function compileBetween(left: AstNode, right: AstNode, scope: OperatorScope): Evaluator {
    const bounds = listItems(right, scope);
    if (bounds.length !== 2) throw scope.refuse('BETWEEN 需要写成 x BETWEEN a AND b');
    const subject = scope.compile(left);
    const low = scope.compile(bounds[0]);
    const high = scope.compile(bounds[1]);
    return (m) => {
        const x = subject(m);
        const fromLow = compare(x, low(m));
        const toHigh = compare(x, high(m));
        return and(fromLow === null ? null : fromLow >= 0, toHigh === null ? null : toHigh <= 0);
    };
}

/** x IS [NOT] NULL, x IS [NOT] TRUE / FALSE: never NULL. */
function compileIs(negate: boolean, left: AstNode, right: AstNode, scope: OperatorScope): Evaluator {
    const subject = scope.compile(left);
    const literal = literalOf(right);
    if (!literal || (literal[1] !== null && typeof literal[1] !== 'boolean')) {
        throw scope.refuse('IS 后只能是 NULL、TRUE 或 FALSE');
    }
    const wanted = literal[1];
    const test: Evaluator = wanted === null ? (m) => subject(m) === null : (m) => truth(subject(m)) === wanted;
    return negate ? (m) => !test(m) : test;
}

/** x LIKE pattern: % any run of characters, _ one, \% and \_ themselves; case-sensitive; NULL unless both are text. */
function compileLike(left: AstNode, right: AstNode, scope: OperatorScope): Evaluator {
    const subject = scope.compile(left);
    const literal = literalOf(right);
    if (literal && typeof literal[1] === 'string') {
        const regex = likeRegex(literal[1]);
        return (m) => {
            const x = subject(m);
            return typeof x === 'string' ? regex.test(x) : null;
        };
    }
    const pattern = scope.compile(right);
    return (m) => {
        const x = subject(m);
        const p = pattern(m);
        return typeof x === 'string' && typeof p === 'string' ? cachedLikeRegex(p).test(x) : null;
    };
}

const likeRegexes = new Map<string, RegExp>();

function cachedLikeRegex(pattern: string): RegExp {
    let regex = likeRegexes.get(pattern);
    if (!regex) {
        regex = likeRegex(pattern);
        if (likeRegexes.size > 1000) likeRegexes.clear();
        likeRegexes.set(pattern, regex);
    }
    return regex;
}

function likeRegex(pattern: string): RegExp {
    let source = '';
    const chars = [...pattern];
    for (let i = 0; i < chars.length; i++) {
        const c = chars[i];
        if (c === '\\' && i + 1 < chars.length) source += escapeRegex(chars[++i]);
        else if (c === '%') source += '[^]*';
        else if (c === '_') source += '[^]';
        else source += escapeRegex(c);
    }
    return new RegExp(`^${source}$`, 'u');
}

function escapeRegex(c: string): string {
    return /[.*+?^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
}
