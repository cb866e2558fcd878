/**
 * The scaffolded msw test (tests/resources/NAME.test.tsx): a platform answering in the contract's envelope, and tests
 * that list the first page with its columns and paging names, refuse an empty create form with the schema's message,
 * then create (a JSON body read as JSON, a form as a form), and delete after the confirmation.
 */
import type { ListShape, Operation } from './contract';
import type { FieldPlan } from './fields';
import { sampleOf, sampleRecord, sampleValue } from './samples';

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export interface TestContext {
    label: string;
    routePath: string;
    idField: string;
    rule: string;
    generatedNote: string;
    list: Operation;
    paging?: [string, string];
    shape: ListShape;
    getOne?: Operation;
    create?: Operation;
    update?: Operation;
    remove?: Operation;
    fields: FieldPlan[];
    columns: FieldPlan[];
    nameField?: FieldPlan;
    idParam: (op: Operation | undefined) => string;
    definitionImport: string;
    helpersImport: string;
}

/** Kinds the test fills by typing or choosing (tags: one value typed); any other required input is left to the integrator (a TODO). */
const FILLABLE = new Set(['text', 'longText', 'number', 'select', 'boolean', 'tags']);

const ENVELOPES: Record<string, string> = {
    returnCode1111: `{ returnCode: '1111', returnMessage: 'success', data }`,
    returnCode0: `{ returnCode: 0, returnMessage: 'success', data }`,
    code0: `{ code: 0, msg: 'success', data }`,
    code200: `{ code: 200, msg: 'success', data }`,
};

/** The list handler's answer: one page of the rows (all of them for a list without paging) in the envelope. */
function pageAnswer(c: TestContext): string {
    const page = c.paging ? 'rows.slice((n - 1) * size, n * size)' : 'rows';
    if (c.shape.read === 'data') return page;
    const rowsKey = c.shape.read.split('.').slice(1).join('.');
    const total = c.shape.total ? `, ${c.shape.total.split('.').slice(1).join('.')}: rows.length` : '';
    return `{ ${rowsKey}: ${page}${total} }`;
}

const bodyOf = (op: Operation) => (op.bodyEncoding === 'json' ? 'await json(request)' : 'await form(request)');

function handlers(c: TestContext): string {
    const { list, getOne, create, update, remove, idField } = c;
    const out = [
        `    http.get('*${list.path}', ({ request }) => {
        const params = query(request);
        lists.push(params);
${c.paging ? `        const n = Number(params.get(${q(c.paging[0])}) ?? 1);\n        const size = Number(params.get(${q(c.paging[1])}) ?? 10);\n` : ''}        return answer(${pageAnswer(c)});
    }),`,
    ];
    if (getOne)
        out.push(`    http.get('*${getOne.path}', ({ request }) =>
        answer(rows.find((r) => String(r.${idField}) === query(request).get(${q(c.idParam(getOne))})) ?? null),
    ),`);
    if (create)
        out.push(`    http.${create.method}('*${create.path}', async ({ request }) => {
        const body = ${bodyOf(create)};
        written.push({ path: ${q(create.path)}, body });
        const record = { ...SAMPLE[0], ...body, ${idField}: rows.length + 100 };
        rows.unshift(record);
        return answer(record);
    }),`);
    if (update && update !== create)
        out.push(`    http.${update.method}('*${update.path}', async ({ request }) => {
        const body = ${bodyOf(update)};
        written.push({ path: ${q(update.path)}, body });
        return answer(body);
    }),`);
    if (remove) out.push(removeHandler(c, remove));
    return out.join('\n');
}

function removeHandler(c: TestContext, remove: Operation): string {
    // A POST delete carries the id in its form body, as the data provider sends it.
    const id =
        remove.method === 'delete' || remove.method === 'get'
            ? `query(request).get(${q(c.idParam(remove))})`
            : `(${bodyOf(remove)})[${q(c.idParam(remove))}]`;
    return `    http.${remove.method}('*${remove.path}', async ({ request }) => {
        const id = ${id};
        written.push({ path: ${q(remove.path)}, body: { id: String(id) } });
        rows = rows.filter((r) => String(r.${c.idField}) !== String(id));
        return answer(null);
    }),`;
}

function listTest(c: TestContext, firstName: string | undefined, secondPageName: string | undefined, n: number) {
    const shown = Math.min(n, 10);
    const headers = c.columns
        .map(
            (f) =>
                `        expect(within(table).getByRole('columnheader', { name: ${q(f.label)} })).toBeInTheDocument();`,
        )
        .join('\n');
    const first = firstName
        ? `        expect(await screen.findByText(${q(firstName)}, undefined, SLOW)).toBeInTheDocument();\n` +
          (secondPageName ? `        expect(screen.queryByText(${q(secondPageName)})).not.toBeInTheDocument();\n` : '')
        : `        await screen.findByRole('table', undefined, SLOW);\n`;
    const paging = c.paging
        ? `        expect(lists.at(-1)?.get(${q(c.paging[0])})).toBe('1');\n        expect(lists.at(-1)?.get(${q(c.paging[1])})).toBe('10');\n`
        : '';
    return `
    it('lists the first page with its columns${c.paging ? ", asking with the contract\\'s paging names" : ''}', async () => {
        renderDefinitions([definition], '/${c.routePath}');
${first}        const table = screen.getByRole('table');
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(1 + ${shown}));
${headers}
${paging}    });
`;
}

/** What the test types or chooses: a sample value (for a tags input, one of its items). */
function typedValue(f: FieldPlan): unknown {
    if (f.kind === 'tags') return sampleValue(f.key, f.schema.items ?? {}, 20, f.label);
    return sampleOf(f, f.kind === 'select' ? 0 : 20);
}

function fillLine(f: FieldPlan, value: unknown): string {
    const name = `/${escapeRegExp(f.label)}/`;
    if (f.kind === 'select')
        return `        await chooseOption(within(dialog).getByRole('combobox', { name: ${name} }), ${q(String(value))});`;
    if (f.kind === 'number')
        return `        await userEvent.type(within(dialog).getByRole('spinbutton', { name: ${name} }), ${q(String(value))});`;
    if (f.kind === 'boolean') return `        // ${f.label}: a switch, left as it is`;
    return `        await userEvent.type(within(dialog).getByRole('textbox', { name: ${name} }), ${q(String(value))});`;
}

function createTest(c: TestContext, firstName: string, create: Operation): string {
    const required = c.fields.filter((f) => f.inForm && f.required);
    const filled = required.filter((f) => FILLABLE.has(f.kind));
    const unfilled = required.filter((f) => !FILLABLE.has(f.kind));
    const values = new Map(filled.map((f) => [f, typedValue(f)]));
    const firstRequired = filled.find((f) => f.kind !== 'boolean');
    const message = firstRequired && `${firstRequired.kind === 'select' ? '请选择' : '请输入'}${firstRequired.label}`;
    const json = create.bodyEncoding === 'json';
    // A JSON body keeps the values' types (a tags input's text read as its array); a form sends text.
    const expected = sampleRecord(filled, 0, (f) => {
        const v = values.get(f);
        if (!json) return String(v);
        return f.kind === 'tags' ? [v] : v;
    });
    const refuse = message
        ? `        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText(${q(message)})).toBeInTheDocument();
        expect(written).toHaveLength(0);
`
        : '';
    const todo = unfilled.map(
        (f) => `        // TODO(scaffold): fill ${f.label} (${f.key}, a ${f.kind} input) to create`,
    );
    const creates = unfilled.length
        ? `${todo.join('\n')}\n`
        : `${filled.map((f) => fillLine(f, values.get(f))).join('\n')}
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('创建成功')).toBeInTheDocument();
        expect(written[0]).toMatchObject({ path: ${q(create.path)}, body: ${JSON.stringify(expected)} });
`;
    return `
    it('refuses an empty form with the schema\\'s messages${unfilled.length ? '' : ', then creates'}', async () => {
        renderDefinitions([definition], '/${c.routePath}');
        await screen.findByText(${q(firstName)}, undefined, SLOW);
        fireEvent.click(screen.getByRole('button', { name: ${q(`新建${c.label}`)} }));
        const dialog = await screen.findByRole('dialog', { name: ${q(`新建${c.label}`)} });
${refuse}${creates}    });
`;
}

function deleteTest(c: TestContext, firstName: string, remove: Operation): string {
    return `
    it('deletes a row after its confirmation', async () => {
        renderDefinitions([definition], '/${c.routePath}');
        const cell = await screen.findByText(${q(firstName)}, undefined, SLOW);
        fireEvent.click(within(cell.closest('tr')!).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm).toHaveTextContent(${q(`确定删除该${c.label}吗？`)});
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('删除成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByText(${q(firstName)})).not.toBeInTheDocument());
        expect(written).toContainEqual({ path: ${q(remove.path)}, body: { id: '1' } });
    });
`;
}

/** The sample rows the msw platform starts from: 12 for a paged list (two pages), 5 for one without paging. */
export function sampleRows(c: TestContext) {
    const n = c.paging ? 12 : 5;
    const inRows = c.fields.filter((f) => f.inRows);
    return Array.from({ length: n }, (_, i) =>
        sampleRecord(inRows, i, (f) => (f.key === c.idField ? i + 1 : sampleOf(f, i))),
    );
}

export function testSource(c: TestContext): string {
    const rows = sampleRows(c);
    const name = c.nameField?.key;
    const textOf = (row: Record<string, unknown>) => (name ? String(row[name]) : undefined);
    const firstName = textOf(rows[0]);
    const secondPageName = c.paging ? textOf(rows[10]) : undefined;
    const jsonBodies = [c.create, c.update, c.remove].some((o) => o?.bodyEncoding === 'json');
    const formBodies =
        [c.create, c.update].some((o) => o && o.bodyEncoding !== 'json') ||
        (c.remove?.method === 'post' && c.remove.bodyEncoding !== 'json');
    const tests = `${listTest(c, firstName, secondPageName, rows.length)}${
        c.create && firstName ? createTest(c, firstName, c.create) : ''
    }${c.remove && firstName ? deleteTest(c, firstName, c.remove) : ''}`;
    // Import what the tests use, so tsc's noUnusedLocals holds whichever tests were written.
    const library = ['fireEvent', 'screen', 'waitFor', 'within'].filter(
        (n) => n === 'screen' || tests.includes(`${n}(`) || tests.includes(`${n}.`),
    );
    const helpers = ['chooseOption', 'mswServer', 'renderDefinitions'].filter(
        (n) => n === 'mswServer' || tests.includes(n),
    );
    return `import { ${library.join(', ')} } from '@testing-library/react';
${tests.includes('userEvent.') ? "import userEvent from '@testing-library/user-event';\n" : ''}import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import definition from '${c.definitionImport}';
import { ${helpers.join(', ')} } from '${c.helpersImport}';

/**
 * ${c.label} against msw (${c.generatedNote}): the platform below answers as the contract says. Grow it with the
 * screens you add.
 */

type Row = Record<string, unknown>;

const SAMPLE: Row[] = ${JSON.stringify(rows, null, 4)};

let rows: Row[] = [];
const lists: URLSearchParams[] = [];
const written: Array<{ path: string; body: Record<string, unknown> }> = [];

const answer = (data: unknown) => HttpResponse.json(${ENVELOPES[c.rule] ?? ENVELOPES.code200});
const query = (request: Request) => new URL(request.url).searchParams;
${formBodies ? 'const form = async (request: Request) =>\n    Object.fromEntries([...(await request.formData()).entries()].map(([k, v]) => [k, String(v)]));\n' : ''}${jsonBodies ? 'const json = async (request: Request) => (await request.json()) as Row;\n' : ''}
const handlers = () => [
${handlers(c)}
];

beforeEach(() => {
    rows = SAMPLE.map((r) => ({ ...r }));
    lists.length = 0;
    written.length = 0;
    mswServer.use(...handlers());
});

const SLOW = { timeout: 15_000 };

describe('${c.label}', () => {${tests}});
`;
}
