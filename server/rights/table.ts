import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { cacheDir, fromRoot, pruneCache } from '../paths';
import { ADMIN_RIGHT, isKnownRight } from '../../schemas/rights';
import { REFERENCE_KINDS, type ReferenceKind } from './references';

export const OPENAPI_PATH = fromRoot('openapi.yaml');

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

export interface RightEntry {
    method: string;
    /** The openapi path ('/api/device/{id}' patterns become one segment each). */
    path: string;
    /** The declared x-right, or undefined. */
    right?: string;
    /** The operation declares `security: []` (no session needed, so no right either). */
    open: boolean;
    /** The declared x-references: fields of this call (query or body) naming a record of a kind (references.ts). */
    references?: Record<string, ReferenceKind>;
}

export interface RightTable {
    /** The right a call needs: 'admin' for a write without x-right; undefined: any signed-in user. */
    rightFor(method: string, path: string): string | undefined;
    /** The operation's x-references, if it declares any. */
    referencesFor(method: string, path: string): Record<string, ReferenceKind> | undefined;
    entries: RightEntry[];
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/**
 * The rights of every operation, read once from openapi.yaml's `x-right` (docs/roles.md). Exact paths are looked up
 * in a map; templated ones ('{id}') are tried in turn. An unknown right name stops the server at start.
 */
export function loadRightTable(source = readFileSync(OPENAPI_PATH, 'utf8')): RightTable {
    const entries: RightEntry[] = [];
    for (const { m, p, op } of operationsOf(source)) {
        const right = typeof op['x-right'] === 'string' ? (op['x-right'] as string) : undefined;
        if (right !== undefined && !isKnownRight(right))
            throw new Error(
                `openapi.yaml: ${m.toUpperCase()} ${p} declares x-right '${right}', not in schemas/rights.ts`,
            );
        const open = Array.isArray(op.security) && op.security.length === 0;
        const references = op['x-references'] as Record<string, ReferenceKind> | undefined;
        for (const [field, kind] of Object.entries(references ?? {}))
            if (!REFERENCE_KINDS.includes(kind))
                throw new Error(`openapi.yaml: ${m.toUpperCase()} ${p} x-references ${field}: unknown kind '${kind}'`);
        entries.push({ method: m.toUpperCase(), path: p, right, open, references });
    }
    const exact = new Map<string, RightEntry>();
    const templated: Array<{ method: string; re: RegExp; entry: RightEntry }> = [];
    for (const e of entries) {
        if (e.path.includes('{')) {
            const re = new RegExp(
                '^' + e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$',
            );
            templated.push({ method: e.method, re, entry: e });
        } else exact.set(`${e.method} ${e.path}`, e);
    }
    const find = (method: string, p: string) => {
        const m = method === 'HEAD' ? 'GET' : method;
        return exact.get(`${m} ${p}`) ?? templated.find((t) => t.method === m && t.re.test(p))?.entry;
    };
    return {
        entries,
        rightFor(method, p) {
            const entry = find(method, p);
            if (entry?.right) return entry.right;
            return isRead(method === 'HEAD' ? 'GET' : method) ? undefined : ADMIN_RIGHT;
        },
        referencesFor: (method, p) => find(method, p)?.references,
    };
}

type Operation = Record<string, unknown>;

const parsed = new Map<string, Array<{ m: (typeof METHODS)[number]; p: string; op: Operation }>>();

/**
 * openapi.yaml's operations with the fields the rights need (x-right, security, x-references). Parsing the YAML
 * takes most of a second, on every start and in every test that builds the app, so the result is kept in memory and
 * beside the PGlite template, keyed by the file's content: a changed openapi.yaml is parsed again.
 */
function operationsOf(source: string) {
    const key = createHash('sha256').update(source).digest('hex').slice(0, 16);
    const known = parsed.get(key);
    if (known) return known;
    const file = path.join(cacheDir(), `openapi-operations-${key}.json`);
    let ops: Array<{ m: (typeof METHODS)[number]; p: string; op: Operation }>;
    try {
        ops = JSON.parse(readFileSync(file, 'utf8')) as typeof ops;
    } catch {
        const spec = parse(source) as { paths?: Record<string, Record<string, Operation>> };
        ops = [];
        for (const [p, item] of Object.entries(spec.paths ?? {}))
            for (const m of METHODS) {
                const op = item?.[m];
                if (op)
                    ops.push({
                        m,
                        p,
                        op: { 'x-right': op['x-right'], security: op.security, 'x-references': op['x-references'] },
                    });
            }
        try {
            // Written aside and renamed, so a concurrent reader never sees half a file.
            mkdirSync(cacheDir(), { recursive: true });
            const partial = `${file}.${process.pid}`;
            writeFileSync(partial, JSON.stringify(ops));
            renameSync(partial, file);
            pruneCache(cacheDir(), 'openapi-operations-', 4);
        } catch {
            // A read-only install parses again next time.
        }
    }
    parsed.set(key, ops);
    return ops;
}
