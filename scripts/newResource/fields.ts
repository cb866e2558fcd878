/**
 * What each property of the contract becomes in the console: a field's kind (its type and input in the vocabulary,
 * src/engine/types.ts), flattened nested objects, the row grid of an array of objects, and a TODO(scaffold) note for
 * what the vocabulary has no input for, so nothing is dropped silently.
 */
import { typeOf, type Schema } from './contract';

export type FieldKind =
    | 'text'
    | 'longText'
    | 'number'
    | 'boolean'
    | 'select'
    /** A string of format date-time: a datetime input keeping the contract's ISO text. */
    | 'dateTime'
    /** A name ending in Time without a format: the platform's 'YYYY-MM-DD HH:mm:ss' text, shown as a date. */
    | 'datetime'
    | 'date'
    /** An array of enum values: checkboxes over the choices. */
    | 'checkboxes'
    /** An array of plain values: no tags input in the vocabulary, a textarea of one value a line. */
    | 'tags'
    /** An array of objects: repeatable rows, a grid of the item's fields. */
    | 'rows'
    | 'file'
    /** Anything else (an object of objects, an open map, oneOf): JSON text in a 'code' input (language json). */
    | 'json';

export interface FieldPlan {
    /** The property's name; a nested object's property is dotted (`timeWindow.start`). */
    key: string;
    label: string;
    schema: Schema;
    kind: FieldKind;
    inRows: boolean;
    inForm: boolean;
    required: boolean;
    /** The name of the exported choices constant (an enum, or an array of enum values). */
    choices?: string;
    /** The fields of one row ('rows'). */
    rowFields?: FieldPlan[];
    /** What the scaffold could not map, said in the generated file and printed. */
    todo?: string;
}

/** A TODO(scaffold) line: what could not be mapped and where the contract says it. */
export interface Todo {
    where: string;
    what: string;
}

export const todoLine = (t: Todo) => `// TODO(scaffold): ${t.what} (${t.where})`;

const scalar = (t: string | undefined) => t === 'string' || t === 'integer' || t === 'number' || t === 'boolean';

/** `oneOf: [X, { type: 'null' }]` (or anyOf) is X that may be null; any other choice of shapes stays as it is. */
export function nonNull(s: Schema): Schema {
    // A null among an enum's values says the property may be null, not that null is a choice.
    if (s.enum?.includes(null)) return nonNull({ ...s, enum: s.enum.filter((v) => v !== null) });
    const items = s.items && nonNull(s.items);
    if (items !== s.items) return nonNull({ ...s, items });
    const alternatives = s.oneOf ?? s.anyOf;
    if (!alternatives) return s;
    const real = alternatives.filter((a) => typeOf(a) !== 'null');
    if (real.length !== 1) return s;
    const own = Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'oneOf' && k !== 'anyOf'));
    return nonNull({ ...real[0], ...own } as Schema);
}

/** The kind of one property, and the note when the vocabulary has no input that says it exactly. */
export function kindOf(key: string, s: Schema): { kind: FieldKind; todo?: string } {
    const t = typeOf(s);
    if (s.oneOf || s.anyOf) {
        const alternatives = (s.oneOf ?? s.anyOf)!.map((a) => typeOf(a) ?? '?').join(' | ');
        return { kind: 'json', todo: `${key} is one of ${alternatives}: JSON text until its input is chosen` };
    }
    if (s.enum?.length) return { kind: 'select' };
    if (t === 'integer' || t === 'number') return { kind: 'number' };
    if (t === 'boolean') return { kind: 'boolean' };
    if (t === 'array') return arrayKind(key, s.items);
    if (t === 'object') {
        return { kind: 'json', todo: `${key} is an object of nested objects or an open map: JSON text, no input fits` };
    }
    if (s.format === 'binary') return { kind: 'file' };
    if (s.format === 'date-time') return { kind: 'dateTime' };
    if (s.format === 'date') return { kind: 'date' };
    if (/Time$/.test(key)) return { kind: 'datetime' };
    if ((s.maxLength ?? 0) > 200 || /^(remark|description|content)$/.test(key)) return { kind: 'longText' };
    return { kind: 'text' };
}

function arrayKind(key: string, items: Schema | undefined): { kind: FieldKind; todo?: string } {
    const t = typeOf(items);
    if (items?.enum?.length) return { kind: 'checkboxes' };
    if (t === 'object' && items?.properties) return { kind: 'rows' };
    if (scalar(t)) {
        return {
            kind: 'tags',
            todo: `${key} is an array of ${t}: the vocabulary has no tags input, a textarea of one value a line`,
        };
    }
    return { kind: 'json', todo: `${key} is an array of ${t ?? 'unknown items'}: JSON text, no input fits` };
}

/** An object whose properties are all plain values, flattened into dotted fields; anything deeper stays one field. */
export const flattens = (s: Schema) =>
    typeOf(s) === 'object' &&
    !s.oneOf &&
    !s.anyOf &&
    !!s.properties &&
    Object.keys(s.properties).length > 0 &&
    Object.values(s.properties).every((p) => typeOf(nonNull(p)) !== 'object' && typeOf(nonNull(p)) !== 'array');

export interface PlanInput {
    rowProps: Record<string, Schema>;
    formProps: Record<string, Schema>;
    formRequired: Set<string>;
    idField: string;
    /** The label of a name: the contract's title, else the console's own word, else the name. */
    titleOf: (key: string, s: Schema) => string;
    /** The exported constant holding a field's choices. */
    choicesName: (key: string) => string;
}

/** The fields of a resource: the rows' properties, then the form's own, nested objects flattened. */
export function planFields(input: PlanInput): FieldPlan[] {
    const { rowProps, formProps, formRequired, idField, titleOf } = input;
    const fields: FieldPlan[] = [];
    for (const key of new Set([...Object.keys(rowProps), ...Object.keys(formProps)])) {
        const schema = nonNull({ ...(rowProps[key] ?? {}), ...(formProps[key] ?? {}) } as Schema);
        const inForm = key in formProps && key !== idField;
        const base = { inRows: key in rowProps, inForm, required: inForm && formRequired.has(key) };
        if (flattens(schema)) {
            const subRequired = new Set(schema.required ?? []);
            const parent = titleOf(key, schema);
            for (const [sub, subSchema] of Object.entries(schema.properties!)) {
                const s = nonNull(subSchema);
                const dotted = `${key}.${sub}`;
                const label = `${parent}·${titleOf(sub, s)}`;
                fields.push(
                    planOne(dotted, s, label, { ...base, required: base.required && subRequired.has(sub) }, input),
                );
            }
        } else fields.push(planOne(key, schema, titleOf(key, schema), base, input));
    }
    return fields;
}

function planOne(
    key: string,
    schema: Schema,
    label: string,
    base: Pick<FieldPlan, 'inRows' | 'inForm' | 'required'>,
    input: PlanInput,
): FieldPlan {
    const { kind, todo } = kindOf(key, schema);
    // A value only shown (rows, no form) needs no input: its note would say nothing to do.
    const plan: FieldPlan = { key, label, schema, kind, ...base, todo: base.inForm ? todo : undefined };
    if (kind === 'select' || kind === 'checkboxes') plan.choices = input.choicesName(key);
    if (kind === 'rows') plan.rowFields = rowFieldsOf(key, schema.items!, input);
    return plan;
}

/** One row's fields: the item's properties, each a plain input (a nested one is JSON text with its note). */
function rowFieldsOf(key: string, item: Schema, input: PlanInput): FieldPlan[] {
    const required = new Set(item.required ?? []);
    return Object.entries(item.properties ?? {}).map(([sub, own]) => {
        const s = nonNull(own);
        const { kind, todo } = kindOf(`${key}[].${sub}`, s);
        const flat = kind === 'rows' || kind === 'tags' || kind === 'file';
        return {
            key: sub,
            label: input.titleOf(sub, s),
            schema: s,
            kind: flat ? 'json' : kind,
            inRows: false,
            inForm: true,
            required: required.has(sub),
            choices: kind === 'select' || kind === 'checkboxes' ? input.choicesName(`${key}_${sub}`) : undefined,
            todo: flat ? `${key}[].${sub} (${kind}) inside a row: JSON text, rows hold plain inputs only` : todo,
        };
    });
}

/** Every note of the plan, nested rows included. */
export function todosOf(fields: FieldPlan[], where: (f: FieldPlan) => string): Todo[] {
    return fields.flatMap((f) => [
        ...(f.todo ? [{ what: f.todo, where: where(f) }] : []),
        ...(f.rowFields ? todosOf(f.rowFields, () => where(f)) : []),
    ]);
}
