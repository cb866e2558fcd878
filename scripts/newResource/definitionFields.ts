/**
 * A field plan as the definition says it: `key: { label, type, input, choices, rows, ... }` in the vocabulary of
 * src/engine/types.ts, with its TODO(scaffold) note above it when the vocabulary has no exact input.
 */
import type { FieldPlan } from './fields';
import { todoLine } from './fields';

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const keyOf = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : q(k));

/** ISO 8601 text, as a contract's date-time is written (the datetime input keeps epoch ms unless told). */
export const ISO_FORMAT = 'YYYY-MM-DDTHH:mm:ssZ';

/** The type / input / options a kind gives a field. */
function kindParts(f: FieldPlan): string[] {
    switch (f.kind) {
        case 'text':
            return [];
        case 'longText':
        case 'number':
        case 'boolean':
        case 'datetime':
            return [`type: ${q(f.kind)}`];
        case 'select':
            return [`type: 'select'`, `choices: ${f.choices}`];
        case 'dateTime':
            return [`type: 'datetime'`, `input: 'datetime'`, `dates: { valueFormat: ${q(ISO_FORMAT)} }`];
        case 'date':
            return [`type: 'date'`, `input: 'date'`];
        case 'checkboxes':
            return [`input: 'checkboxes'`, `choices: ${f.choices}`];
        case 'tags':
            return [`input: 'textarea'`, `helperText: '每行一个'`];
        case 'rows':
            return [`input: 'rows'`, rowsPart(f)];
        case 'file':
            return [`input: 'file'`];
        case 'json':
            return [`input: 'code'`, `code: { language: 'json' }`];
    }
}

/** A repeatable row: its fields side by side in a grid, the delete button last. */
function rowsPart(f: FieldPlan): string {
    const cells = (f.rowFields ?? []).map((c) => `[${q(c.key)}, { ${fieldParts(c).join(', ')} }]`);
    const columns = `repeat(${Math.max(cells.length, 1)}, minmax(0, 1fr)) auto`;
    return `rows: { fields: [${cells.join(', ')}], columns: ${q(columns)}, addLabel: ${q(`添加${f.label}`)} }`;
}

function fieldParts(f: FieldPlan): string[] {
    const parts = [`label: ${q(f.label)}`, ...kindParts(f)];
    if (f.required) parts.push('required: true');
    if (f.inForm && f.schema.maxLength !== undefined && (f.kind === 'text' || f.kind === 'longText'))
        parts.push(`maxLength: ${f.schema.maxLength}`);
    if (!f.inForm) parts.push('readOnly: true');
    return parts;
}

/** Kinds a list cell cannot show as one value. */
export const NOT_A_COLUMN = new Set(['longText', 'rows', 'json', 'tags', 'checkboxes', 'file']);

/** The field's line in `fields`, its notes (its own and its rows') above it. */
export function fieldLine(f: FieldPlan, where: string): string {
    const parts = fieldParts(f);
    if (f.inForm && !f.inRows) parts.push(`views: ['create', 'edit']`);
    const notes = [f.todo, ...(f.rowFields ?? []).map((c) => c.todo)].filter(Boolean) as string[];
    const comments = notes.map((what) => `        ${todoLine({ what, where })}\n`).join('');
    return `${comments}        ${keyOf(f.key)}: { ${parts.join(', ')} },`;
}
