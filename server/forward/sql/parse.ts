import * as mysqlGrammar from 'node-sql-parser/build/mysql.js';
import type { AST, BaseFrom, From, Select } from 'node-sql-parser/build/mysql.js';
import { errorAt, FlowSqlError } from './errors';
import { prepareSql, type PathSegment, type PreparedSql } from './prepare';
import { topicFilterProblem } from './topic';

// The MySQL grammar alone (a quarter of a megabyte) rather than the package's every dialect (2.5 MB). A CommonJS
// bundle: Node's ES module loader gives it as the default export only, esbuild's bundle as both.
const grammar = (mysqlGrammar as unknown as { default?: typeof mysqlGrammar }).default ?? mysqlGrammar;
const parser = new grammar.Parser();

/** The most text a flow's statement may hold (UTF-8 bytes). */
export const MAX_SQL_BYTES = 8 * 1024;

const FROM_EXAMPLE = '如 FROM "/sys/+/+/thing/event/property/post"';

/** One flow statement, checked for what a flow supports. */
export interface ParsedFlow {
    select: Select;
    /** The FROM topic filter as written. */
    topic: string;
    /** The operator's text (positions of refusals are offsets in it). */
    sql: string;
    /** Payload paths the pre-processing replaced, by offset (prepare.ts). */
    paths: Map<number, PathSegment[]>;
    /** Where each SELECT column starts in the text. */
    columnOffsets: number[];
}

/** Parses one flow statement, or throws FlowSqlError with the Chinese reason and its position. */
export function parseFlowSql(sql: string): ParsedFlow {
    checkSize(sql);
    const prepared = prepareSql(sql);
    if (prepared.empty) throw errorAt(sql, 0, '语句为空');
    if (prepared.from?.topic === '') throw errorAt(sql, prepared.from.offset, '主题过滤器不能为空');
    const statements = astify(sql, prepared.text);
    if (statements.length === 0) throw errorAt(sql, 0, '语句为空');
    if (statements.length > 1) throw errorAt(sql, locOffset(statements[1]) ?? 0, '流转只支持一条 SELECT 语句');
    const statement = statements[0];
    if (statement.type !== 'select') {
        throw errorAt(
            sql,
            prepared.words[0]?.offset ?? 0,
            `流转只支持一条 SELECT 语句，不支持 ${statement.type.toUpperCase()}`,
        );
    }
    checkClauses(sql, statement, prepared);
    const topic = checkFrom(sql, statement, prepared);
    return { select: statement, topic, sql, paths: prepared.paths, columnOffsets: prepared.columnOffsets };
}

function checkSize(sql: string): void {
    if (Buffer.byteLength(sql, 'utf8') <= MAX_SQL_BYTES) return;
    let bytes = 0;
    let offset = 0;
    for (const ch of sql) {
        bytes += Buffer.byteLength(ch, 'utf8');
        if (bytes > MAX_SQL_BYTES) break;
        offset += ch.length;
    }
    throw errorAt(sql, offset, '语句超过 8 KB');
}

function astify(sql: string, text: string): AST[] {
    try {
        const ast = parser.astify(text, { database: 'mysql', parseOptions: { includeLocations: true } });
        return Array.isArray(ast) ? ast : [ast];
    } catch (e) {
        throw syntaxError(sql, e);
    }
}

/** The parser's complaint in the operator's words: what it could not read, where. */
function syntaxError(sql: string, e: unknown): FlowSqlError {
    const { location, found } = e as { location?: { start?: { offset?: number } }; found?: string | null };
    const offset = location?.start?.offset;
    if (typeof offset !== 'number') return errorAt(sql, 0, `语法错误：${(e as Error).message}`);
    if (found === null || found === undefined || offset >= sql.length) return errorAt(sql, offset, '语句不完整');
    const snippet = /^\S{1,20}/.exec(sql.slice(offset))?.[0] ?? found;
    return errorAt(sql, offset, `语法错误：无法理解「${snippet}」`);
}

function locOffset(node: unknown): number | undefined {
    return (node as { loc?: { start: { offset: number } } } | null)?.loc?.start.offset;
}

/** The offset of the first `word` outside strings and paths, for a refused clause the AST does not locate. */
function wordOffset(prepared: PreparedSql, word: string): number {
    return prepared.words.find((w) => w.word === word)?.offset ?? 0;
}

/** Refuses the clauses a flow of single messages has no use for. */
function checkClauses(sql: string, select: Select, prepared: PreparedSql): void {
    const refused = (clause: string, word = clause) => errorAt(sql, wordOffset(prepared, word), `流转不支持 ${clause}`);
    if (select.with) throw refused('WITH');
    if (select._next || select.set_op)
        throw refused((select.set_op ?? 'UNION').toUpperCase(), (select.set_op ?? 'UNION').toUpperCase().split(' ')[0]);
    if (select.distinct) throw refused('DISTINCT');
    if (Array.isArray(select.from) && select.from.some((f) => 'join' in f && f.join)) throw refused('JOIN');
    if (select.groupby) throw refused('GROUP BY', 'GROUP');
    if (select.having) throw refused('HAVING');
    if (select.orderby) throw refused('ORDER BY', 'ORDER');
    if (select.limit && select.limit.value.length > 0) throw refused('LIMIT');
    if (select.window) throw refused('WINDOW');
    const into = (select as { into?: { position?: unknown } }).into;
    if (into?.position) throw refused('INTO');
    if ((select as { locking_read?: unknown }).locking_read) throw refused('FOR UPDATE', 'FOR');
}

/** The FROM: one quoted topic filter, valid for MQTT. */
function checkFrom(sql: string, select: Select, prepared: PreparedSql): string {
    const from = Array.isArray(select.from) ? select.from : [];
    const target = prepared.from;
    if (from.length === 0 || !target)
        throw errorAt(sql, statementEnd(sql), `缺少 FROM：请写一个用引号括起的主题，${FROM_EXAMPLE}`);
    if (from.length > 1) throw errorAt(sql, locOffset(from[1]) ?? target.offset, 'FROM 只能写一个主题');
    const first = from[0];
    if (target.topic === null || !isTable(first) || locOffset(first) !== target.offset) {
        throw errorAt(sql, target.offset, `FROM 后应是一个用引号括起的主题，${FROM_EXAMPLE}`);
    }
    if (first.as) throw errorAt(sql, target.offset, 'FROM 的主题不能起别名');
    const problem = topicFilterProblem(target.topic);
    if (problem) throw errorAt(sql, target.offset, problem);
    return target.topic;
}

function isTable(from: From): from is BaseFrom {
    return typeof (from as BaseFrom).table === 'string' && !(from as { expr?: unknown }).expr;
}

/** Where a missing clause would go: after the statement's last character (a closing `;` aside). */
function statementEnd(sql: string): number {
    return sql.replace(/[\s;]+$/, '').length;
}
