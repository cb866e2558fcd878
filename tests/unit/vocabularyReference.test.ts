import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
    END,
    START,
    checkReference,
    readVocabulary,
    renderReference,
    withReference,
} from '../../scripts/vocabularyReference';

/**
 * `npm run lint` runs `scripts/vocabularyReference.ts --check`: it fails on an option without a doc comment and on a
 * guide whose generated reference differs from the types, and passes on the real types and docs/adding-a-resource.md.
 */

const fixture = path.resolve(import.meta.dirname, 'fixtures/vocabularyUndocumented.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'vocabulary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A guide holding the fixture's reference, as `npm run docs:vocabulary` writes it. */
async function fixtureGuide(): Promise<string> {
    const guide = path.join(dir, 'guide.md');
    const text = `# Guide\n\n${START}\n${END}\n`;
    writeFileSync(guide, await withReference(text, guide, renderReference(readVocabulary([fixture]))));
    return guide;
}

describe('the vocabulary reference check', () => {
    it('reads each option with its type and comment', () => {
        const [probe] = readVocabulary([fixture]);
        expect(probe.name).toBe('ProbeOptions');
        expect(probe.options.map((o) => [o.path, o.type, o.doc])).toEqual([
            ['every', 'number', 'Seconds between two asks.'],
            ['retries', 'number', ''],
        ]);
    });

    it('fails on a type with an undocumented option, naming the option and where it is', async () => {
        const problems = await checkReference([fixture], await fixtureGuide());
        expect(problems).toEqual([
            'ProbeOptions.retries (tests/unit/fixtures/vocabularyUndocumented.ts:7) has no doc comment',
        ]);
    });

    it('fails on a guide whose reference is stale, saying the first line that differs', async () => {
        const guide = await fixtureGuide();
        writeFileSync(guide, readFileSync(guide, 'utf8').replace('Seconds between two asks.', 'Minutes.'));
        const problems = await checkReference([fixture], guide);
        expect(problems).toHaveLength(2);
        expect(problems[1]).toMatch(/reference is stale \(run npm run docs:vocabulary\); line \d+: the guide has/);
        expect(problems[1]).toContain('Minutes.');
    });

    it('passes on the engine’s types and docs/adding-a-resource.md', async () => {
        expect(await checkReference()).toEqual([]);
    }, 60_000);
});
