import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { protectedOperations, spec } from './support';

/**
 * The reliability probe: every operation of openapi.yaml gets malformed values and bodies over real HTTP. No answer
 * may be a server fault or a dropped connection, and what must be refused (NUL characters, objects where a value
 * belongs, bodies that do not parse) must leave the data as it was. A new operation is covered the day openapi.yaml
 * declares it.
 */

type Json = Record<string, unknown>;

const deref = (node: unknown): Json => {
    let n = node as Json;
    while (n && typeof n.$ref === 'string') {
        n = (n.$ref as string)
            .slice(2)
            .split('/')
            .reduce<unknown>((acc, part) => (acc as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')], spec) as Json;
    }
    return n ?? {};
};

function queryNames(op: Json): string[] {
    return ((op.parameters as unknown[] | undefined) ?? [])
        .map(deref)
        .filter((p) => p.in === 'query')
        .map((p) => String(p.name));
}

function bodyInfo(op: Json): { types: string[]; names: string[]; lists: Set<string> } {
    const content = (deref(op.requestBody).content ?? {}) as Record<string, Json>;
    const names = new Set<string>();
    // Properties declared as arrays take a JSON array legitimately.
    const lists = new Set<string>();
    for (const media of Object.values(content)) {
        const schema = deref(media.schema);
        const parts = [schema, ...((schema.allOf as unknown[]) ?? []).map(deref)];
        for (const part of parts) {
            for (const [name, prop] of Object.entries((part.properties as Json) ?? {})) {
                names.add(name);
                const p = deref(prop);
                const types = [p.type, ...((p.oneOf ?? p.anyOf ?? []) as Json[]).map((o) => deref(o).type)].flat();
                if (types.includes('array')) lists.add(name);
            }
        }
    }
    return { types: Object.keys(content), names: [...names], lists };
}

// Signing out would end the probe's own session.
const SKIP = /logout/i;
const operations = protectedOperations.filter((o) => !SKIP.test(o.path));

const fillPath = (p: string) => p.replace(/\{[^}]+\}/g, '1');

const BIG_NUMBERS = ['2147483648', '-2147483649', '1e308', '99999999999999999999'];
const NUL = 'a\u0000b';

/** Tables whose rows a refused request must not change. */
const TABLES = [
    'products',
    'devices',
    'projects',
    'scenes',
    'thing_functions',
    'product_logs',
    'tags',
    'device_files',
    'device_groups',
    'group_devices',
    'project_users',
    'alert_events',
    'users',
    'video_devices',
    'edge_drivers',
    'edge_instances',
    'edge_instance_drivers',
    'edge_instance_devices',
    'edge_deployments',
    'ota_packages',
    'ota_batches',
    'ota_tasks',
];

let server: TestServer;
let http: Server;
let base: string;

async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of TABLES) {
        const result = (await server.db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`))) as unknown as {
            rows: Array<{ n: number }>;
        };
        out[table] = Number(result.rows[0].n);
    }
    return out;
}

interface Probe {
    label: string;
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: string;
}

interface Outcome {
    probe: Probe;
    status?: number;
    error?: string;
}

async function send(probe: Probe): Promise<Outcome> {
    try {
        const res = await fetch(`${base}${probe.url}`, {
            method: probe.method,
            headers: { cookie: `Authorization=${server.token}`, ...probe.headers },
            body: probe.body,
            redirect: 'manual',
        });
        await res.arrayBuffer();
        return { probe, status: res.status };
    } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        return { probe, error: cause?.code ?? String(err) };
    }
}

function form(values: Record<string, string>): string {
    return new URLSearchParams(values).toString();
}

/** Probes that must be refused and change nothing. */
function refusedProbes(): Probe[] {
    const out: Probe[] = [];
    for (const { method, path, op } of operations) {
        const url = fillPath(path);
        for (const name of queryNames(op)) {
            out.push({ label: `${method} ${path} ?${name}=NUL`, method, url: `${url}?${form({ [name]: NUL })}` });
        }
        if (method === 'GET' || method === 'DELETE') continue;
        const { types, names, lists } = bodyInfo(op);
        if (types.length === 0) continue;
        const formType = types.find((t) => t.startsWith('application/x-www-form-urlencoded'));
        out.push({
            label: `${method} ${path} broken multipart`,
            method,
            url,
            headers: { 'content-type': 'multipart/form-data; boundary=----probe' },
            body: '------probe\r\nContent-Disposition: form-data; name="x"\r\n\r\nunterminated',
        });
        out.push({
            label: `${method} ${path} broken JSON`,
            method,
            url,
            headers: { 'content-type': 'application/json' },
            body: '{"productName": ',
        });
        for (const name of names) {
            if (formType) {
                out.push({
                    label: `${method} ${path} form ${name}=NUL`,
                    method,
                    url,
                    headers: { 'content-type': 'application/x-www-form-urlencoded' },
                    body: form({ [name]: NUL }),
                });
            }
            for (const value of lists.has(name) ? [{ $gt: 1 }, [NUL], NUL] : [{ $gt: 1 }, [1, 2], NUL]) {
                out.push({
                    label: `${method} ${path} json ${name}=${JSON.stringify(value)}`,
                    method,
                    url,
                    headers: { 'content-type': 'application/json' },
                    body: JSON.stringify({ [name]: value }),
                });
            }
        }
    }
    return out;
}

/** Out-of-range numbers: a text field may accept them as text, so only faults are forbidden here. */
function numberProbes(): Probe[] {
    const out: Probe[] = [];
    for (const { method, path, op } of operations) {
        const url = fillPath(path);
        for (const name of queryNames(op)) {
            for (const n of BIG_NUMBERS) {
                out.push({ label: `${method} ${path} ?${name}=${n}`, method, url: `${url}?${form({ [name]: n })}` });
            }
        }
        if (method === 'GET' || method === 'DELETE') continue;
        const { types, names } = bodyInfo(op);
        if (!types.some((t) => t.startsWith('application/x-www-form-urlencoded') || t.startsWith('multipart'))) {
            continue;
        }
        for (const n of BIG_NUMBERS) {
            out.push({
                label: `${method} ${path} form all=${n}`,
                method,
                url,
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: form(Object.fromEntries(names.map((name) => [name, n]))),
            });
        }
    }
    return out;
}

async function run(probes: Probe[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    // A few at a time, over keep-alive connections, as a browser sends them.
    for (let i = 0; i < probes.length; i += 4) {
        outcomes.push(...(await Promise.all(probes.slice(i, i + 4).map(send))));
    }
    return outcomes;
}

const faults = (outcomes: Outcome[]) =>
    outcomes.filter((o) => o.error || (o.status ?? 0) >= 500).map((o) => `${o.probe.label} → ${o.error ?? o.status}`);

describe('malformed input on every operation of openapi.yaml', () => {
    beforeAll(async () => {
        server = await createTestServer({ seed: true, logError: () => undefined });
        http = createAdaptorServer({ fetch: server.app.fetch }) as Server;
        await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
        await new Promise((resolve) => http?.close(resolve));
        await server?.close();
    });

    it('refuses NUL characters, objects for values and unparsable bodies with a 4xx, storing nothing', async () => {
        const probes = refusedProbes();
        expect(probes.length).toBeGreaterThan(300);
        const before = await counts();
        const outcomes = await run(probes);
        expect(faults(outcomes)).toEqual([]);
        const accepted = outcomes.filter((o) => o.status! < 400).map((o) => `${o.probe.label} → ${o.status}`);
        expect(accepted).toEqual([]);
        expect(await counts()).toEqual(before);
    }, 180_000);

    it('answers out-of-range numbers without a server fault or a dropped connection', async () => {
        const probes = numberProbes();
        expect(probes.length).toBeGreaterThan(100);
        const outcomes = await run(probes);
        expect(faults(outcomes)).toEqual([]);
    }, 180_000);
});
