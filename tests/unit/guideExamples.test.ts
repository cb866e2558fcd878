import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The guide's contact-group example (section 10) and day grid (section 8) are copies of the regions of
 * tests/types/guideContactGroups.check.ts, which tsc checks: a copy that drifts from its region fails here.
 */

const read = (file: string) => readFileSync(resolve(process.cwd(), file), 'utf8');
const guide = read('docs/adding-a-resource.md');
const example = read('tests/types/guideContactGroups.check.ts');

function region(name: string): string {
    const match = new RegExp(`// DOC-START ${name}\\n([\\s\\S]*?)// DOC-END ${name}`).exec(example);
    expect(match, `no region ${name} in the example file`).not.toBeNull();
    return match![1].trimEnd();
}

describe('the guide holds the type-checked examples word for word', () => {
    it.each(['schema', 'definition', 'daygrid'])('region %s', (name) => {
        const text = region(name);
        expect(text.length).toBeGreaterThan(200);
        expect(guide).toContain(`${text}\n\`\`\``);
    });
});
