/**
 * The yup rule of each form field, from the contract's constraints (required, minLength / maxLength, minimum /
 * maximum, pattern, enum, format, minItems / maxItems), with the console's Chinese messages.
 */
import { typeOf, type BodyEncoding, type Schema } from './contract';
import type { FieldPlan } from './fields';

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const lit = (v: unknown) => (typeof v === 'string' ? q(v) : JSON.stringify(v));
const EMPTY_TO_UNDEFINED = `.transform((value, raw) => (raw === '' || raw === null ? undefined : value))`;

const isNumber = (s: Schema | undefined) => typeOf(s) === 'integer' || typeOf(s) === 'number';

function numberRule(label: string, s: Schema, required: boolean): string[] {
    const parts = ['yup.number()', EMPTY_TO_UNDEFINED, `.typeError(${q(`${label}必须是数字`)})`];
    if (required) parts.push(`.required(${q(`${s.enum?.length ? '请选择' : '请输入'}${label}`)})`);
    if (typeOf(s) === 'integer') parts.push(`.integer(${q(`${label}必须是整数`)})`);
    if (s.minimum !== undefined) parts.push(`.min(${s.minimum}, ${q(`${label}不能小于${s.minimum}`)})`);
    if (s.maximum !== undefined) parts.push(`.max(${s.maximum}, ${q(`${label}不能大于${s.maximum}`)})`);
    return parts;
}

function stringRule(label: string, s: Schema, required: boolean, select: boolean): string[] {
    const parts = ['yup.string()'];
    if (!select) parts.push('.trim()');
    if (required) parts.push(`.required(${q(`${select ? '请选择' : '请输入'}${label}`)})`);
    if (s.minLength !== undefined && s.minLength > 0)
        parts.push(`.min(${s.minLength}, ${q(`${label}不得少于${s.minLength}个字符`)})`);
    if (s.maxLength !== undefined) parts.push(`.max(${s.maxLength}, ${q(`${label}不得超过${s.maxLength}个字符`)})`);
    if (s.pattern !== undefined)
        parts.push(`.matches(/${s.pattern.replace(/\//g, '\\/')}/, ${q(`${label}格式不正确`)})`);
    if (s.format === 'email') parts.push(`.email(${q(`${label}必须是有效的邮箱地址`)})`);
    if (s.format === 'uri' || s.format === 'url') parts.push(`.url(${q(`${label}必须是有效的网址`)})`);
    return parts;
}

/** An enum's values, the empty value allowed when the field may be left out. */
function oneOf(label: string, s: Schema, required: boolean): string {
    const values = [...s.enum!.map(lit), ...(required ? [] : isNumber(s) ? ['undefined'] : ["''"])];
    return `.oneOf([${values.join(', ')}], ${q(`请选择${label}`)})`;
}

/** A scalar's rule (a row's cell, an array's item, a plain field). */
function scalarRule(label: string, s: Schema, required: boolean): string {
    if (typeOf(s) === 'boolean') return 'yup.boolean()';
    const parts = isNumber(s) ? numberRule(label, s, required) : stringRule(label, s, required, !!s.enum?.length);
    if (s.enum?.length) parts.push(oneOf(label, s, required));
    return parts.join('');
}

/** minItems / maxItems, and `required` as at least one item. */
function itemCount(label: string, s: Schema, required: boolean, verb: string): string {
    const parts: string[] = [];
    const min = Math.max(s.minItems ?? 0, required ? 1 : 0);
    if (min > 0) parts.push(`.min(${min}, ${q(min === 1 ? `请${verb}${label}` : `${label}至少${min}项`)})`);
    if (s.maxItems !== undefined) parts.push(`.max(${s.maxItems}, ${q(`${label}最多${s.maxItems}项`)})`);
    return parts.join('');
}

/** A date-time: yup's date for a JSON body (a Date travels as ISO text); a form body keeps the text and checks it. */
function dateTimeRule(label: string, required: boolean, encoding: BodyEncoding): string {
    if (encoding === 'json') {
        const parts = ['yup.date()', EMPTY_TO_UNDEFINED, `.typeError(${q(`${label}不是有效的时间`)})`];
        if (required) parts.push(`.required(${q(`请选择${label}`)})`);
        return parts.join('');
    }
    const test = `.test('date-time', ${q(`${label}不是有效的时间`)}, (v) => !v || !Number.isNaN(Date.parse(v)))`;
    return `yup.string()${required ? `.required(${q(`请选择${label}`)})` : ''}${test}`;
}

/** Text of plain values, one a line (or comma separated), read as the array the contract asks for. */
const SPLIT_LINES = `.transform((value, raw) => (typeof raw === 'string' ? raw.split(/[\\n,，]/).map((v) => v.trim()).filter(Boolean) : value))`;

/** The yup rule of one form field, its messages in Chinese. */
export function yupRule(f: FieldPlan, encoding: BodyEncoding = 'form'): string {
    const s = f.schema;
    switch (f.kind) {
        case 'boolean':
            return 'yup.boolean()';
        case 'dateTime':
            return dateTimeRule(f.label, f.required, encoding);
        case 'checkboxes':
            return `yup.array().of(${scalarRule(f.label, s.items!, true)})${itemCount(f.label, s, f.required, '选择')}`;
        case 'tags': {
            const item = isNumber(s.items) ? `yup.number().typeError(${q(`${f.label}必须是数字`)})` : 'yup.string()';
            return `yup.array()${SPLIT_LINES}.of(${item}.required())${itemCount(f.label, s, f.required, '输入')}`;
        }
        case 'rows': {
            const cells = (f.rowFields ?? []).map((c) => `${c.key}: ${yupRule(c, encoding)}`).join(', ');
            return `yup.array().of(yup.object({ ${cells} }))${itemCount(f.label, s, f.required, '添加')}`;
        }
        case 'file':
            return `yup.mixed()${f.required ? `.required(${q(`请选择${f.label}`)})` : ''}`;
        case 'json':
            return `yup.mixed()${f.required ? `.required(${q(`请输入${f.label}`)})` : ''}`;
        default:
            return scalarRule(f.label, s, f.required);
    }
}

/** The form's yup object: dotted fields (a nested object's properties) as nested yup objects. */
export function schemaObject(fields: FieldPlan[], encoding: BodyEncoding, indent = '    '): string {
    const groups = new Map<string, FieldPlan[]>();
    const lines: string[] = [];
    for (const f of fields) {
        const [head, ...rest] = f.key.split('.');
        if (!rest.length) lines.push(`${indent}${head}: ${yupRule(f, encoding)},`);
        else {
            if (!groups.has(head)) lines.push(`\u0000${head}`);
            groups.set(head, [...(groups.get(head) ?? []), { ...f, key: rest.join('.') }]);
        }
    }
    return lines
        .map((l) =>
            l.startsWith('\u0000')
                ? `${indent}${l.slice(1)}: yup.object({\n${schemaObject(groups.get(l.slice(1))!, encoding, `${indent}    `)}\n${indent}}),`
                : l,
        )
        .join('\n');
}
