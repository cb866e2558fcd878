import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneCache } from '../../server/paths';

/**
 * The derived-files cache (node_modules/.cache/iot-console) keeps a PGlite template (~40 MB) per migration set and a
 * parsed openapi.yaml per version: without pruning, every change of either leaves one more behind for good.
 */
describe('pruneCache', () => {
    let dir: string;
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** An entry (a file, or a folder when `folder`) written `hoursAgo`. */
    const entry = (name: string, hoursAgo: number, folder = false) => {
        const target = path.join(dir, name);
        if (folder) mkdirSync(target);
        else writeFileSync(target, name);
        const at = new Date(Date.now() - hoursAgo * 3_600_000);
        utimesSync(target, at, at);
    };

    it('keeps the newest entries of its kind, files and folders alike, and leaves other kinds alone', () => {
        dir = mkdtempSync(path.join(os.tmpdir(), 'prune-cache-'));
        entry('pglite-template-a.tar', 50);
        entry('pglite-template-a', 50, true);
        entry('pglite-template-b.tar', 30);
        entry('pglite-template-b', 30, true);
        entry('pglite-template-c.tar', 2);
        entry('pglite-template-c', 2, true);
        entry('openapi-operations-x.json', 100);
        pruneCache(dir, 'pglite-template-', 4);
        expect(readdirSync(dir).sort()).toEqual([
            'openapi-operations-x.json',
            'pglite-template-b',
            'pglite-template-b.tar',
            'pglite-template-c',
            'pglite-template-c.tar',
        ]);
    });

    it('never removes an entry written in the last ten minutes (another process may be building it)', () => {
        dir = mkdtempSync(path.join(os.tmpdir(), 'prune-cache-'));
        entry('openapi-operations-new.json', 0);
        entry('openapi-operations-building.json.123', 0.05);
        entry('openapi-operations-old.json', 24);
        pruneCache(dir, 'openapi-operations-', 1);
        expect(readdirSync(dir).sort()).toEqual([
            'openapi-operations-building.json.123',
            'openapi-operations-new.json',
        ]);
    });

    it('does nothing when the folder is missing', () => {
        dir = path.join(os.tmpdir(), `prune-cache-missing-${process.pid}`);
        expect(() => pruneCache(dir, 'x', 1)).not.toThrow();
    });
});
