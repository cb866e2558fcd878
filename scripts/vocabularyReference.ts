/**
 * The vocabulary reference of docs/adding-a-resource.md, generated from the engine's own types
 * (src/engine/types.ts and the vocabulary it re-exports, src/engine/vocabulary.ts): every interface and type, and
 * every option of them with its type and doc comment, between the markers <!-- vocabulary:start --> and
 * <!-- vocabulary:end -->. So the guide and the vocabulary cannot disagree:
 *
 *   node --import tsx scripts/vocabularyReference.ts           writes the section (npm run docs:vocabulary)
 *   node --import tsx scripts/vocabularyReference.ts --check   exits 1, saying why, when an option has no doc comment
 *                                                              or the section differs from the types (npm run lint)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
export const VOCABULARY_FILES = ['src/engine/types.ts', 'src/engine/vocabulary.ts'].map((f) => path.join(ROOT, f));
export const GUIDE = path.join(ROOT, 'docs/adding-a-resource.md');
export const START = '<!-- vocabulary:start -->';
export const END = '<!-- vocabulary:end -->';

/** One option: its dotted path inside its declaration (`picker.columns`, `filters[].label`), type and comment. */
export interface OptionEntry {
    path: string;
    optional: boolean;
    type: string;
    doc: string;
    /** Where it is declared (file:line), for the check's messages. */
    at: string;
}

/** One interface or type alias of the vocabulary. */
export interface Declaration {
    name: string;
    doc: string;
    /** `interface X extends Y` or `type X = …` (an alias's text when it is not object types). */
    signature: string;
    options: OptionEntry[];
    /** Literal members of a union alias that carry a comment (`'position'`: a point on the map). */
    members: Array<{ text: string; doc: string }>;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A node's doc comment (its JSDoc text and tags such as @deprecated), on one line. */
function docOf(node: ts.Node): string {
    const parts: string[] = [];
    for (const doc of ts.getJSDocCommentsAndTags(node)) {
        if (!ts.isJSDoc(doc)) continue;
        const text = ts.getTextOfJSDocComment(doc.comment);
        if (text) parts.push(text);
        for (const tag of doc.tags ?? []) {
            const tagText = ts.getTextOfJSDocComment(tag.comment);
            parts.push(`@${tag.tagName.text}${tagText ? ` ${tagText}` : ''}`);
        }
    }
    return oneLine(parts.join(' '));
}

/** The doc comment between `from` and a node, which JSDoc does not attach (a member of a union type). */
function commentBefore(node: ts.Node, from: number, source: ts.SourceFile): string {
    const between = source.text.slice(from, node.getStart(source));
    const comments = [...between.matchAll(/\/\*\*([\s\S]*?)\*\//g)];
    const last = comments.at(-1)?.[1];
    return last ? oneLine(last.replace(/^\s*\* ?/gm, '')) : '';
}

/** A type's text without its comments, on one line. */
function typeText(node: ts.TypeNode, source: ts.SourceFile): string {
    const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
    const text = oneLine(printer.printNode(ts.EmitHint.Unspecified, node, source));
    return text.replace(/\[ /g, '[').replace(/ \]/g, ']').replace(/; \}/g, ' }');
}

/** Object types an option's type holds, with the suffix naming their entries (`[]` inside an array). */
function nestedLiterals(type: ts.TypeNode, suffix = ''): Array<[ts.TypeLiteralNode, string]> {
    if (ts.isTypeLiteralNode(type)) return [[type, suffix]];
    if (ts.isParenthesizedTypeNode(type)) return nestedLiterals(type.type, suffix);
    if (ts.isArrayTypeNode(type)) return nestedLiterals(type.elementType, `${suffix}[]`);
    if (ts.isUnionTypeNode(type)) return type.types.flatMap((t) => nestedLiterals(t, suffix));
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeArguments?.length === 1) {
        const name = type.typeName.text;
        if (name === 'Array' || name === 'ReadonlyArray') return nestedLiterals(type.typeArguments[0], `${suffix}[]`);
    }
    return [];
}

/** The options of an interface or object type, nested object types' options under their dotted path. */
function optionsOf(members: ts.NodeArray<ts.TypeElement>, prefix: string, source: ts.SourceFile): OptionEntry[] {
    const out: OptionEntry[] = [];
    for (const member of members) {
        if (!ts.isPropertySignature(member) && !ts.isMethodSignature(member)) continue;
        const name = member.name.getText(source);
        const optionPath = prefix ? `${prefix}.${name}` : name;
        const line = source.getLineAndCharacterOfPosition(member.getStart(source)).line + 1;
        const at = `${path.relative(ROOT, source.fileName)}:${line}`;
        const type = ts.isPropertySignature(member)
            ? member.type
                ? typeText(member.type, source)
                : 'any'
            : oneLine(member.getText(source).replace(/^[^(]*/, ''));
        out.push({ path: optionPath, optional: !!member.questionToken, type, doc: docOf(member), at });
        const literals = ts.isPropertySignature(member) && member.type ? nestedLiterals(member.type) : [];
        for (const [literal, suffix] of literals) out.push(...optionsOf(literal.members, optionPath + suffix, source));
    }
    return out;
}

function interfaceDeclaration(node: ts.InterfaceDeclaration, source: ts.SourceFile): Declaration {
    const heritage = node.heritageClauses?.map((h) => oneLine(h.getText(source))).join(' ') ?? '';
    const params = node.typeParameters ? `<${node.typeParameters.map((p) => p.getText(source)).join(', ')}>` : '';
    return {
        name: node.name.text,
        doc: docOf(node),
        signature: oneLine(`interface ${node.name.text}${params} ${heritage}`),
        options: optionsOf(node.members, '', source),
        members: [],
    };
}

/** The `kind` an object type of a union is told apart by ('row' of `{ kind: 'row'; … }`), or ''. */
function kindOf(member: ts.TypeLiteralNode, source: ts.SourceFile): string {
    const kind = member.members.find((m) => ts.isPropertySignature(m) && m.name.getText(source) === 'kind');
    const kindType = kind && ts.isPropertySignature(kind) && kind.type ? kind.type.getText(source) : '';
    return kindType.replace(/^'(.*)'$/, '$1');
}

/** A union's object members name their options by their `kind` (`{ kind: 'row'; widths }` → `(kind 'row').widths`). */
function unionObjectOptions(type: ts.UnionTypeNode, source: ts.SourceFile): OptionEntry[] {
    return type.types.flatMap((member) => {
        if (!ts.isTypeLiteralNode(member)) return [];
        const prefix = kindOf(member, source);
        return optionsOf(member.members, prefix ? `(kind '${prefix}')` : '', source).filter(
            (o) => o.path !== `(kind '${prefix}').kind`,
        );
    });
}

function aliasDeclaration(node: ts.TypeAliasDeclaration, source: ts.SourceFile): Declaration {
    const params = node.typeParameters ? `<${node.typeParameters.map((p) => p.getText(source)).join(', ')}>` : '';
    const type = node.type;
    const members: Declaration['members'] = [];
    let options: OptionEntry[] = [];
    let signature = `type ${node.name.text}${params} = ${typeText(type, source)}`;
    if (ts.isTypeLiteralNode(type)) {
        options = optionsOf(type.members, '', source);
        signature = `type ${node.name.text}${params} = { … }`;
    } else if (ts.isUnionTypeNode(type)) {
        options = unionObjectOptions(type, source);
        if (options.length) signature = `type ${node.name.text}${params} = { kind: … } | …`;
        type.types.forEach((member, i) => {
            const doc = commentBefore(member, i ? type.types[i - 1].end : type.pos, source);
            if (!doc) return;
            if (ts.isLiteralTypeNode(member)) members.push({ text: member.getText(source), doc });
            else if (ts.isTypeLiteralNode(member)) members.push({ text: `(kind '${kindOf(member, source)}')`, doc });
        });
    }
    return { name: node.name.text, doc: docOf(node), signature, options, members };
}

/** Every interface and type alias the files declare (exported or a base such as ActionBase), in file order. */
export function readVocabulary(files: string[] = VOCABULARY_FILES): Declaration[] {
    const out: Declaration[] = [];
    for (const file of files) {
        const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
        for (const node of source.statements) {
            if (ts.isInterfaceDeclaration(node)) out.push(interfaceDeclaration(node, source));
            else if (ts.isTypeAliasDeclaration(node)) out.push(aliasDeclaration(node, source));
        }
    }
    return out;
}

/** A `kind: 'form'` discriminant: the declaration's own comment says what it is. */
const isKind = (o: OptionEntry) => /(^|\.)kind$/.test(o.path) && /^'[^']*'$/.test(o.type);

/** Options without a doc comment (a `kind` discriminant excepted), each with where it is declared. */
export function undocumented(declarations: Declaration[]): string[] {
    return declarations.flatMap((d) =>
        d.options.filter((o) => !o.doc && !isKind(o)).map((o) => `${d.name}.${o.path} (${o.at}) has no doc comment`),
    );
}

function renderDeclaration(d: Declaration): string {
    const lines = [`### \`${d.name}\``, '', `\`${d.signature}\``, ''];
    if (d.doc) lines.push(d.doc, '');
    for (const m of d.members) lines.push(`- \`${m.text}\`: ${m.doc}`);
    for (const o of d.options) {
        const doc = o.doc || (isKind(o) ? 'what this declaration is (see above)' : '—');
        lines.push(`- \`${o.path}${o.optional ? '?' : ''}\` (\`${o.type}\`): ${doc}`);
    }
    if (d.members.length || d.options.length) lines.push('');
    return lines.join('\n');
}

/** The generated section, markers excluded. */
export function renderReference(declarations: Declaration[]): string {
    const intro =
        'Generated from the doc comments of `src/engine/types.ts` and `src/engine/vocabulary.ts` by ' +
        '`npm run docs:vocabulary`; `npm run lint` fails when it is stale or an option has no comment. ' +
        'Edit the comments, not this section.';
    return [intro, '', ...declarations.map(renderDeclaration)].join('\n');
}

/** The guide with its section replaced by the reference, formatted as `prettier --check` wants it. */
export async function withReference(guide: string, guidePath: string, reference: string): Promise<string> {
    const start = guide.indexOf(START);
    const end = guide.indexOf(END);
    if (start < 0 || end < start) throw new Error(`${guidePath}: 缺少标记 / markers ${START} … ${END} not found`);
    const text = `${guide.slice(0, start + START.length)}\n\n${reference}\n\n${guide.slice(end)}`;
    const options = (await prettier.resolveConfig(guidePath)) ?? {};
    return prettier.format(text, { ...options, filepath: guidePath });
}

/** The first line where two texts differ, for the check's message. */
function firstDifference(have: string, want: string): string {
    const a = have.split('\n');
    const b = want.split('\n');
    const i = a.findIndex((line, n) => line !== b[n]);
    const line = i < 0 ? Math.min(a.length, b.length) : i;
    return `line ${line + 1}: the guide has ${JSON.stringify(a[line] ?? '')}, the types give ${JSON.stringify(b[line] ?? '')}`;
}

/** What is wrong: undocumented options, then a stale section. Empty when the guide matches the types. */
export async function checkReference(files: string[] = VOCABULARY_FILES, guidePath: string = GUIDE): Promise<string[]> {
    const declarations = readVocabulary(files);
    const problems = undocumented(declarations);
    const guide = readFileSync(guidePath, 'utf8');
    const want = await withReference(guide, guidePath, renderReference(declarations));
    if (want !== guide) {
        problems.push(
            `${path.relative(ROOT, guidePath)}: the vocabulary reference is stale (run npm run docs:vocabulary); ` +
                firstDifference(guide, want),
        );
    }
    return problems;
}

async function main(): Promise<void> {
    if (process.argv.includes('--check')) {
        const problems = await checkReference();
        for (const p of problems) console.error(`词汇参考不一致 / vocabulary reference: ${p}`);
        process.exitCode = problems.length ? 1 : 0;
        return;
    }
    const guide = readFileSync(GUIDE, 'utf8');
    const declarations = readVocabulary();
    writeFileSync(GUIDE, await withReference(guide, GUIDE, renderReference(declarations)));
    const missing = undocumented(declarations);
    for (const m of missing) console.warn(`缺少注释 / undocumented: ${m}`);
    console.log(`已写入 / written: ${path.relative(ROOT, GUIDE)} (${declarations.length} declarations)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
    main().catch((error: unknown) => {
        console.error('词汇参考生成失败 / vocabulary reference failed:', error);
        process.exitCode = 1;
    });
}
