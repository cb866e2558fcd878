import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Aedes } from 'aedes';
import { describe, expect, it } from 'vitest';

// server/mqtt/fastConnect.ts rests on two options a dependency patch adds to aedes (patches/, applied by patch-package
// on install). The patch was checked against one aedes version: another one fails here until the patch and the steps
// it removes from a clean CONNECT (node_modules/aedes/lib/handlers/connect.js) are checked again and the patch is
// made anew (`npx patch-package aedes`).

const CHECKED = '1.2.0';
const root = path.resolve(import.meta.dirname, '../..');

describe('the aedes patch', () => {
    it(`is for the aedes installed (${CHECKED})`, () => {
        const installed = JSON.parse(readFileSync(path.join(root, 'node_modules/aedes/package.json'), 'utf8')).version;
        expect(installed, 'aedes was upgraded: check patches/aedes+*.patch and fastConnect.ts against it').toBe(
            CHECKED,
        );
        expect(readdirSync(path.join(root, 'patches')).filter((f) => f.startsWith('aedes+'))).toEqual([
            `aedes+${CHECKED}.patch`,
        ]);
    });

    it('is applied: aedes takes noStoredSession and announceClient, with defaults that change nothing', () => {
        const plain = new Aedes() as unknown as Record<string, (...a: unknown[]) => unknown>;
        expect(plain.noStoredSession({}, { clean: true })).toBe(false);
        expect(plain.announceClient({})).toBe(true);
        const hooked = new Aedes({ noStoredSession: () => true, announceClient: () => false }) as unknown as Record<
            string,
            (...a: unknown[]) => unknown
        >;
        expect([hooked.noStoredSession({}, {}), hooked.announceClient({})]).toEqual([true, false]);
        const connect = readFileSync(path.join(root, 'node_modules/aedes/lib/handlers/connect.js'), 'utf8');
        expect(connect).toContain('client.broker.noStoredSession(client, packet)');
    });
});
