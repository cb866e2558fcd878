import { Blob as NodeBlob } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
    constants,
    cpSync,
    existsSync,
    mkdirSync,
    readdirSync,
    readFileSync,
    renameSync,
    rmSync,
    writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from './db';
import { cacheDir, fromRoot, pruneCache } from '../paths';
import { migrateDatabase, MIGRATIONS_FOLDER } from './migrate';
import { schema } from './schema';

/**
 * A migrated, empty PGlite data directory as a tarball. A new PGlite runs initdb and then every migration (about
 * 2.5 s and 0.5 s on a quiet machine; 12 s and 2.2 s under load), while loading this tarball skips both (4.8 s
 * under the same load, 0.3 s of migrator bookkeeping less). Two users:
 * - tests, which open hundreds of in-memory databases: the first caller on a machine builds it;
 * - the first start on an empty DATA_DIR (`npm install` builds it: scripts/pglite-template.ts), so a fresh
 *   console answers sooner.
 * The file is keyed by the migrations' content and PGlite's version, so a changed migration or PGlite builds a new
 * one and a stale one is never loaded. Callers still run the migrator after loading, which finds nothing to apply.
 */
export function templateFile(): string {
    const dir = process.env.PGLITE_TEMPLATE_DIR ?? cacheDir();
    return path.join(dir, `pglite-template-${templateKey()}.tar`);
}

/** The template, built first when this machine has none for the current migrations. */
export async function migratedTemplate(): Promise<Blob> {
    const file = templateFile();
    if (!existsSync(file)) await buildTemplate(file);
    return readTemplate(file);
}

/** Whether a template was built for the current migrations. */
export const hasTemplate = (): boolean => existsSync(templateFile());

/** The template when one was built for the current migrations, else undefined (the caller runs initdb). */
export function existingTemplate(): Blob | undefined {
    const file = templateFile();
    return existsSync(file) ? readTemplate(file) : undefined;
}

/**
 * The same template as a data directory, for a first start on disk: copying its files is several times faster than
 * PGlite writing the tarball's 1,300 files one by one through its file system layer.
 */
export const templateDirOf = (file = templateFile()): string => file.replace(/\.tar$/, '');

/**
 * Fills an empty data directory from the directory template when this install has one (else false: the caller
 * loads the tarball or runs initdb). PG_VERSION, which marks a directory as holding a database, is copied last, so a
 * start killed mid-copy finds the directory still empty in that sense and copies again. Synchronous on purpose: about
 * 0.1 s here, while node:fs/promises' cp took 1-2 s when the thread was busy loading modules between its steps. A clone
 * where the file system can make one.
 */
export function copyTemplateInto(dir: string): boolean {
    const source = templateDirOf();
    if (!existsSync(path.join(source, 'PG_VERSION'))) return false;
    const marker = path.join(source, 'PG_VERSION');
    const mode = constants.COPYFILE_FICLONE;
    cpSync(source, dir, { recursive: true, mode, filter: (from) => from !== marker });
    cpSync(marker, path.join(dir, 'PG_VERSION'), { mode });
    return true;
}

/** Builds the tarball and the directory template (the directory from the tarball, as a first start would). */
export async function buildTemplate(file = templateFile()): Promise<void> {
    await buildTemplateTar(file);
    const dir = templateDirOf(file);
    const partial = `${dir}.${process.pid}.${Date.now()}`;
    const pglite = new PGlite(partial, { loadDataDir: readTemplate(file) });
    try {
        await pglite.waitReady;
    } finally {
        await pglite.close();
    }
    rmSync(path.join(partial, 'postmaster.pid'), { force: true });
    try {
        rmSync(dir, { recursive: true, force: true });
        renameSync(partial, dir);
    } catch {
        // Another process built it at the same moment: theirs is the same template.
        rmSync(partial, { recursive: true, force: true });
    }
    // Each template is a tarball and a folder: the three newest templates stay.
    pruneCache(path.dirname(file), 'pglite-template-', 6);
}

async function buildTemplateTar(file: string): Promise<void> {
    const pglite = new PGlite();
    try {
        await migrateDatabase(drizzle(pglite, { schema }) as unknown as Db);
        const dump = await pglite.dumpDataDir('none');
        // Written aside and renamed, so a concurrent reader never sees half a file.
        mkdirSync(path.dirname(file), { recursive: true });
        const partial = `${file}.${process.pid}.${Date.now()}`;
        writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
        renameSync(partial, file);
    } finally {
        await pglite.close();
    }
}

// node's Blob, not the global one: under jsdom (resource tests) the global Blob has no arrayBuffer(), which PGlite
// reads the tarball with.
const readTemplate = (file: string) => new NodeBlob([readFileSync(file)]) as unknown as Blob;

function templateKey(): string {
    const hash = createHash('sha256');
    // PGlite's own version too: a tarball of another PGlite may not load.
    const pglitePackage = fromRoot('node_modules', '@electric-sql', 'pglite', 'package.json');
    hash.update((JSON.parse(readFileSync(pglitePackage, 'utf8')) as { version: string }).version);
    for (const name of readdirSync(MIGRATIONS_FOLDER).sort()) {
        if (name.endsWith('.sql')) hash.update(name).update(readFileSync(path.join(MIGRATIONS_FOLDER, name)));
    }
    hash.update(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json')));
    return hash.digest('hex').slice(0, 16);
}
