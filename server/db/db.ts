import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { schema } from './schema';

/** The database as every module uses it: Drizzle over PGlite or node-postgres, with the platform's schema. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction of Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
