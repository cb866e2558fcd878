import { Blob as NodeBlob } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from './client';
import { migrateDatabase, MIGRATIONS_FOLDER } from './migrate';
import { schema } from './schema';

/**
 * A migrated, empty PGlite data directory as a tarball, for the many in-memory databases tests open: a new PGlite
 * runs initdb and then every migration, seconds each time, while loading this tarball skips both (measured under
 * load: 12 s initdb + 2.2 s migrations against 4.8 s to load). The first caller on a machine builds it; the file is
 * keyed by the migrations' content and PGlite's version, so a changed migration builds a new one. Callers still run
 * the migrator after loading, which finds nothing left to apply (or applies what the tarball lacks).
 */
export async function migratedTemplate(): Promise<Blob> {
    const file = path.join(os.tmpdir(), `iot-pglite-template-${templateKey()}.tar`);
    if (!existsSync(file)) {
        const pglite = new PGlite();
        try {
            await migrateDatabase(drizzle(pglite, { schema }) as unknown as Db);
            const dump = await pglite.dumpDataDir('none');
            // Written aside and renamed, so a concurrent reader never sees half a file.
            const partial = `${file}.${process.pid}.${Date.now()}`;
            writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
            renameSync(partial, file);
        } finally {
            await pglite.close();
        }
    }
    // node's Blob, not the global one: under jsdom (resource tests) the global Blob has no arrayBuffer(), which
    // PGlite reads the tarball with.
    return new NodeBlob([readFileSync(file)]) as unknown as Blob;
}

function templateKey(): string {
    const hash = createHash('sha256');
    // PGlite's own version too: a tarball of another PGlite may not load.
    const pglitePackage = path.join(MIGRATIONS_FOLDER, '../../../node_modules/@electric-sql/pglite/package.json');
    hash.update((JSON.parse(readFileSync(pglitePackage, 'utf8')) as { version: string }).version);
    for (const name of readdirSync(MIGRATIONS_FOLDER).sort()) {
        if (name.endsWith('.sql')) hash.update(name).update(readFileSync(path.join(MIGRATIONS_FOLDER, name)));
    }
    hash.update(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json')));
    return hash.digest('hex').slice(0, 16);
}
