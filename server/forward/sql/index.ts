/**
 * The SQL of data-forwarding flows (数据流转): Alibaba Cloud IoT's / EMQX's rule dialect, compiled once to closures
 * and run for each device message. See compile.ts for the statement, functions.ts for the functions, values.ts for
 * NULL and types, prepare.ts for what is rewritten before node-sql-parser reads the text.
 */
export { compileFlowSql } from './compile';
export { FlowSqlError } from './errors';
export { topicMatches } from './topic';
export type { CompiledFlow, FlowMessage, FlowSqlOptions } from './types';
