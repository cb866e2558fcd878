import type pg from 'pg';

/**
 * A connection lost while checked out of `pool` and between statements (in a transaction, or a dedicated run waiting
 * on other work) makes its pg Client emit 'error' with no query to fail, and pg-pool listens only to idle clients: an
 * 'error' event no one hears ends the process. Every client of the pool gets a listener of its own from its creation;
 * the lost connection then fails its next statement, whose caller releases it as broken.
 */
export function survivesLostConnections(pool: pg.Pool): void {
    pool.on('connect', (client) => client.on('error', () => undefined));
}
