// `npm run report:functions`: the functions longer than a limit (150 lines by default), counted with the TypeScript
// compiler over server/ and the console (src/, dataProvider/, resources/, schemas/). A report, not a gate: it prints
// each long function with its length and place, and a count per part. `--limit N` sets the length.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const limitArg = process.argv.indexOf('--limit');
const limit = limitArg > 0 ? Number(process.argv[limitArg + 1]) : 150;
const parts: Record<string, string[]> = {
    server: ['server'],
    console: ['src', 'dataProvider', 'resources', 'schemas'],
};

interface LongFunction {
    file: string;
    name: string;
    line: number;
    lines: number;
}

function sourceFiles(dir: string): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
        else if (/\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
    }
    return out;
}

function nameOf(node: ts.Node): string {
    const named = node as { name?: ts.Node };
    if (named.name && ts.isIdentifier(named.name)) return named.name.text;
    const parent = node.parent;
    if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
    if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
    if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
    return '(anonymous)';
}

function longFunctionsIn(path: string): LongFunction[] {
    const text = readFileSync(path, 'utf8');
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const found: LongFunction[] = [];
    const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
            const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
            const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
            const lines = end - start + 1;
            if (lines > limit) {
                found.push({ file: relative(root, path), name: nameOf(node), line: start + 1, lines });
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
}

for (const [part, dirs] of Object.entries(parts)) {
    const found = dirs
        .flatMap((dir) => sourceFiles(join(root, dir)))
        .flatMap(longFunctionsIn)
        .sort((a, b) => b.lines - a.lines);
    console.log(`${part}: ${found.length} function(s) over ${limit} lines`);
    for (const f of found) console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
}
