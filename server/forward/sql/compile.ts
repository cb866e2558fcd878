import type { Select } from 'node-sql-parser/build/mysql.js';
import { offsetOf, type AstNode } from './ast';
import { errorAt } from './errors';
import { compileExpression, functionName, pathOf, type ExpressionScope } from './expressions';
import { parseFlowSql } from './parse';
import { topicMatcher } from './topic';
import type { CompiledFlow, Evaluator, FlowMessage, FlowSqlOptions } from './types';
import { truth } from './values';

/** One output column: its name and value, or the payload's top-level keys for `*`. */
type Output = { star: true } | { star: false; name: string; value: Evaluator };

/**
 * Compiles a flow's statement (SELECT columns FROM "topic filter" [WHERE condition]) to closures, once; `run` then
 * answers each message's row. Throws FlowSqlError (Chinese, with line and column) for what a flow cannot run.
 */
export function compileFlowSql(sql: string, options: FlowSqlOptions = {}): CompiledFlow {
    const parsed = parseFlowSql(sql);
    const scope: ExpressionScope = {
        sql,
        paths: parsed.paths,
        timeZone: timeZoneOf(options),
    };
    const outputs = compileColumns(parsed.select, parsed.columnOffsets, scope);
    const where = parsed.select.where ? compileWhere(parsed.select.where as unknown as AstNode, scope) : undefined;
    const matchesTopic = topicMatcher(parsed.topic);
    const build = rowBuilder(outputs);
    return {
        from: parsed.topic,
        columns: outputs.map((o) => (o.star ? '*' : o.name)),
        matchesTopic,
        run: (message) => {
            if (!matchesTopic(message.topic)) return undefined;
            if (where && !where(message)) return undefined;
            return build(message);
        },
    };
}

/**
 * The zone timestamp(format) writes in: the option, else the server's TZ, else Asia/Shanghai (as server/config.ts).
 * Checked here, so that formatting a message's time cannot throw in `run`.
 */
function timeZoneOf(options: FlowSqlOptions): string {
    const timeZone = options.timeZone ?? (process.env.TZ?.trim() || 'Asia/Shanghai');
    try {
        new Intl.DateTimeFormat('en-US', { timeZone });
    } catch {
        throw new RangeError(`时区无效 / invalid time zone: ${timeZone}`);
    }
    return timeZone;
}

function compileWhere(node: AstNode, scope: ExpressionScope): (message: FlowMessage) => boolean {
    const condition = compileExpression(node, scope, offsetOf(node) ?? 0);
    return (message) => truth(condition(message)) === true;
}

interface SelectColumn {
    expr: AstNode;
    as?: string | { value: string } | null;
}

function compileColumns(select: Select, offsets: number[], scope: ExpressionScope): Output[] {
    const names = new Set<string>();
    return (select.columns as SelectColumn[]).map((column, index): Output => {
        const at = offsets[index] ?? offsetOf(column.expr) ?? 0;
        if (isStar(column.expr)) return { star: true };
        const name = aliasOf(column) ?? naturalName(column.expr, index, scope);
        if (names.has(name)) throw errorAt(scope.sql, at, `列名 ${name} 重复，请用 AS 另起一个名字`);
        names.add(name);
        return { star: false, name, value: compileExpression(column.expr, scope, at) };
    });
}

function isStar(expr: AstNode): boolean {
    return (expr.type === 'column_ref' && expr.column === '*' && !expr.table) || expr.type === 'star';
}

function aliasOf(column: SelectColumn): string | undefined {
    if (typeof column.as === 'string') return column.as;
    return column.as?.value ?? undefined;
}

/** A column's name without AS: a path's last key, a function's name as written, a CAST's operand's; else colN. */
function naturalName(expr: AstNode, index: number, scope: ExpressionScope): string {
    if (expr.type === 'column_ref') {
        const keys = pathOf(expr, scope).filter((k) => typeof k === 'string');
        if (keys.length > 0) return keys[keys.length - 1];
    }
    if (expr.type === 'function') return functionName(expr);
    if (expr.type === 'cast') return naturalName(expr.expr as AstNode, index, scope);
    return `col${index + 1}`;
}

/** Builds a message's row: columns in SELECT order, `*` copying the payload's own top-level keys. */
function rowBuilder(outputs: Output[]): (message: FlowMessage) => Record<string, unknown> {
    return (message) => {
        const row: Record<string, unknown> = {};
        for (const output of outputs) {
            if (output.star) copyPayload(row, message.payload);
            else put(row, output.name, output.value(message));
        }
        return row;
    };
}

function copyPayload(row: Record<string, unknown>, payload: unknown): void {
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return;
    for (const key of Object.keys(payload)) put(row, key, (payload as Record<string, unknown>)[key] ?? null);
}

/** Sets a row's key (undefined as NULL); `__proto__` as an own key, not the row's prototype. */
function put(row: Record<string, unknown>, key: string, value: unknown): void {
    if (key === '__proto__') {
        Object.defineProperty(row, key, { value: value ?? null, enumerable: true, writable: true, configurable: true });
    } else row[key] = value === undefined ? null : value;
}
