import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleLabels, scaffold, type ScaffoldResult } from '../../scripts/newResource';
import { FRAGMENT_SCAFFOLDS, SCAFFOLD_CHECK_DIR, writeScaffoldCheck } from '../../scripts/scaffoldCheck';
import viteConfig from '../../vite.config';

/**
 * `npm run new:resource` on a contract fragment the product does not have (data forwarding destinations,
 * tests/unit/fixtures/forwarding.openapi.yaml): what the three files it writes say. That they pass tsc (their `api`
 * checked against the fragment's own openapi-typescript types), eslint, prettier and their own msw test unchanged is
 * the project's checks' to prove: npm test writes them to tests/resources/scaffold-check (scripts/scaffoldCheck.ts),
 * and the last test here shows that folder is theirs. The files of this test go to tests/resources/scaffold-tmp
 * (git-ignored, left out of every check) and are removed after.
 */

const root = path.resolve(import.meta.dirname, '../..');
const spec = path.join(root, 'tests/unit/fixtures/forwarding.openapi.yaml');
const out = path.join(root, 'tests/resources/scaffold-tmp', String(process.pid));

let result: ScaffoldResult;
/** The alert contact groups of the fixture: a JSON body, arrays of values and of rows, nested objects, formats. */
let contacts: ScaffoldResult;
const file = (end: string) => [...result.files, ...contacts.files].find((f) => f.endsWith(end))!;
/** A written file's text with prettier's line breaks taken out, so it reads as one line per statement. */
const read = (end: string) =>
    readFileSync(file(end), 'utf8')
        .replace(/\n\s*\./g, '.')
        .replace(/\s+/g, ' ')
        .replace(/,\s*([}\]])/g, ' $1')
        .replace(/([[{(])\s+/g, '$1 ')
        .replace(/\[ '/g, "['");

beforeAll(async () => {
    rmSync(out, { recursive: true, force: true });
    result = await scaffold({ target: 'forwarding', name: 'forwardDests', spec, out });
    contacts = await scaffold({ target: 'contacts', name: 'contactGroups', spec, out });
    // Parsing the contract and three prettier passes: a second or two alone, far more beside a loaded machine's tests.
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run new:resource', () => {
    it('writes the definition, its yup schema and its msw test from the contract, and never overwrites them', async () => {
        expect(result.files.map((f) => path.relative(out, f))).toEqual([
            'schemas/forwardDests.ts',
            'resources/forwardDests.tsx',
            'tests/resources/forwardDests.test.tsx',
        ]);
        const definition = read('resources/forwardDests.tsx');
        // Paging names, rows and total from the list answer; the success rule; the rights family from x-right.
        expect(definition).toContain(
            "getList: { get: '/api/forward/dest/list', paging: ['pageNumber', 'pageSize'], read: 'data.records', total: 'data.total' }",
        );
        expect(definition).toContain("success: 'code200'");
        expect(definition).toContain("rightFamily: 'forward'");
        expect(definition).toContain("delete: { delete: '/api/forward/dest/delete', params: (r) => ({ id: r.id }) }");
        expect(definition).toContain("testForwardDest: { post: '/api/forward/dest/test' }");
        expect(definition).toContain("menu: { label: '转发目的地'");
        // Filters from the list's query parameters: the text one always on, the enum a select.
        expect(definition).toContain("{ source: 'name', label: '名称', alwaysOn: true }");
        expect(definition).toContain(
            "{ source: 'kind', label: '类型', input: 'select', choices: FORWARD_DEST_KIND_CHOICES }",
        );
        // yup rules from required, maxLength, minimum / maximum, pattern and enum, in Chinese.
        const schema = read('schemas/forwardDests.ts');
        expect(schema).toContain(".required('请输入名称').max(32, '名称不得超过32个字符')");
        expect(schema).toContain(".matches(/^[A-Za-z0-9.-]+$/, '主机格式不正确')");
        expect(schema).toContain(".min(1, '端口不能小于1').max(65535, '端口不能大于65535')");
        expect(schema).toContain(".oneOf(['http', 'mqtt', 'kafka'], '请选择类型')");
        await expect(scaffold({ target: 'forwarding', name: 'forwardDests', spec, out })).rejects.toThrow(
            /exists: not overwritten/,
        );
        expect(read('resources/forwardDests.tsx')).toBe(definition);
    });

    it("labels a contract's untitled names with the console's own words, and answers a POST delete from its form", async () => {
        // The product's consumer groups (/api/consumerGroup): no `title` in the contract, a POST delete with an id form.
        const own = path.join(out, 'own');
        const groups = await scaffold({
            target: '/api/consumerGroup',
            name: 'groupDrafts',
            label: '消费者组',
            out: own,
        });
        const definition = readFileSync(groups.files[1], 'utf8');
        // The names every entity has, and those the console's definitions already agree on (所属项目, 已丢弃).
        for (const label of [
            "id: { label: 'ID'",
            "name: { label: '名称'",
            "projectCode: { label: '项目编码'",
            "projectName: { label: '所属项目'",
            "dropped: { label: '已丢弃'",
            "createTime: { label: '创建时间'",
        ])
            expect(definition).toContain(label);
        expect(consoleLabels().get('host')).toBeUndefined(); // two definitions disagree: left to the integrator
        const test = readFileSync(groups.files[2], 'utf8');
        expect(test).toContain("http.post('*/api/consumerGroup/delete', async ({ request }) => {");
        expect(test).toContain("const id = (await form(request))['id'];");
    }, 60_000); // it parses and formats the whole product contract: seconds beside a loaded machine's tests

    it("maps the contact groups' whole contract: JSON body, arrays, rows, nested objects, formats, paging, getOne", () => {
        const definition = read('resources/contactGroups.tsx');
        // page / size, rows in data.list and the total in data.totalCount, the JSON bodies.
        expect(definition).toContain(
            "getList: { get: '/api/contact-group/list', paging: ['page', 'size'], read: 'data.list', total: 'data.totalCount' }",
        );
        expect(definition).toContain("create: { post: '/api/contact-group/save', body: 'json', read: 'data' }");
        expect(definition).toContain("update: { post: '/api/contact-group/update', body: 'json' }");
        // Arrays: an enum's as checkboxes, plain values as a textarea with its TODO, objects as rows with their grid.
        expect(definition).toContain(
            "channels: { label: '通知方式', input: 'checkboxes', choices: CONTACT_GROUP_CHANNELS_CHOICES",
        );
        expect(definition).toContain(
            '// TODO(scaffold): memberIds is an array of integer: the vocabulary has no tags input, a textarea of one value a line (POST /api/contact-group/save body property memberIds)',
        );
        expect(definition).toContain(
            "rota: { label: '值班表', input: 'rows', rows: { fields: [ ['userId', { label: '成员ID', type: 'number', required: true }]",
        );
        expect(definition).toContain("columns: 'repeat(4, minmax(0, 1fr)) auto', addLabel: '添加值班表'");
        // A nested object as dotted fields; a date-time as the datetime input keeping ISO text.
        expect(definition).toContain("'quietHours.start': { label: '免打扰·开始'");
        expect(definition).toContain(
            "effectiveFrom: { label: '生效时间', type: 'datetime', input: 'datetime', dates: { valueFormat: 'YYYY-MM-DDTHH:mm:ssZ' }",
        );
        // The rows lack what the form edits and /get answers it: the edit dialog starts from the record getOne reads.
        expect(definition).toContain('the edit dialog starts from getOne (GET /api/contact-group/get)');
        expect(definition).toContain("editInDialog: { load: 'getOne' }");
        // The forwarding rows carry every form field: the plain dialog.
        expect(read('resources/forwardDests.tsx')).toContain('editInDialog: true');
        // An array filter has no input: said, not dropped; and printed with the rest.
        expect(definition).toContain('// TODO(scaffold): filter memberIds is an array');
        expect(contacts.todos).toEqual([
            expect.stringContaining('memberIds is an array of integer'),
            expect.stringContaining('filter memberIds is an array'),
        ]);
        const schema = read('schemas/contactGroups.ts');
        expect(schema).toContain(".min(2, '组名称不得少于2个字符').max(32, '组名称不得超过32个字符')");
        expect(schema).toContain(".email('邮箱必须是有效的邮箱地址')");
        expect(schema).toContain(".url('回调地址必须是有效的网址')");
        expect(schema).toContain('effectiveFrom: yup.date()');
        expect(schema).toContain('quietHours: yup.object({ start: yup.string().trim(), end: yup.string().trim() })');
        expect(schema).toContain(".min(1, '请输入成员')");
        // Its test reads the JSON body and types a member id, which travels as an array of numbers.
        const test = read('tests/resources/contactGroups.test.tsx');
        expect(test).toContain('const body = await json(request);');
        expect(test).toContain("body: { name: '组名称21', memberIds: [21] }");
    });

    it('refuses a tag the contract does not have', async () => {
        await expect(scaffold({ target: 'nothing', spec, out })).rejects.toThrow(/no operation has the tag/);
    });

    it("is held to the project's own checks: npm test writes it where tsc, eslint, prettier and vitest look", async () => {
        // npm run scaffold:check (first in npm test) writes the fragment's scaffolds to tests/resources/scaffold-check;
        // the project's one tsc and lint cover that folder, and the resources project runs the fragment's msw tests.
        const dir = path.join(out, 'check');
        await writeScaffoldCheck(['fragment'], dir);
        const written = FRAGMENT_SCAFFOLDS.flatMap(({ name }) => [
            `schemas/${name}.ts`,
            `resources/${name}.tsx`,
            `tests/resources/${name}.test.tsx`,
        ]);
        // The same files this test's scaffolds are (but for their imports' depth): what the checks hold to their rules
        // is what the tests above read.
        const text = (f: string) => readFileSync(f, 'utf8').replace(/(\.\.\/)+/g, '../');
        for (const f of written) expect(text(path.join(dir, 'fragment', f))).toBe(text(file(f)));
        const inCheck = (f: string) => path.join(SCAFFOLD_CHECK_DIR, f);
        const checked = [inCheck('fragment/resources/contactGroups.tsx'), inCheck('contract/resources/devices.tsx')];
        const program = ts.getParsedCommandLineOfConfigFile(
            path.join(root, 'tsconfig.json'),
            {},
            {
                ...ts.sys,
                onUnRecoverableConfigFileDiagnostic: (d) => {
                    throw new Error(String(d.messageText));
                },
            },
        )!;
        expect(program.raw.include).toContain('tests');
        expect(program.raw.exclude).toEqual(['tests/resources/scaffold-tmp']);
        const eslint = new ESLint({ cwd: root });
        for (const f of checked) expect(await eslint.isPathIgnored(f), f).toBe(false);
        for (const f of checked)
            expect((await prettier.getFileInfo(f, { ignorePath: path.join(root, '.prettierignore') })).ignored, f).toBe(
                false,
            );
        const resources = viteConfig.test!.projects!.find(
            (p) => typeof p === 'object' && 'test' in p && p.test?.name === 'resources',
        ) as { test: { include: string[]; exclude: string[] } };
        const runs = (f: string) =>
            resources.test.include.some((g) => path.matchesGlob(f, g)) &&
            !resources.test.exclude.some((g) => path.matchesGlob(f, g));
        expect(runs('tests/resources/scaffold-check/fragment/tests/resources/contactGroups.test.tsx')).toBe(true);
        expect(runs('tests/resources/scaffold-check/contract/tests/resources/devices.test.tsx')).toBe(false);
        expect(runs('tests/resources/scaffold-tmp/1/tests/resources/contactGroups.test.tsx')).toBe(false);
        const npmTest = readFileSync(path.join(root, 'scripts/test.mjs'), 'utf8');
        for (const part of ['fragment', 'contract']) expect(npmTest).toContain(`scaffoldCheck('${part}')`);
        // Loading eslint's and prettier's configurations and two scaffolds: seconds, more beside a loaded machine's tests.
    }, 120_000);
});
