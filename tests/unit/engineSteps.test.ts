// Steps the engine's inputs and lists keep as named functions, reached without rendering.
import { describe, expect, it } from 'vitest';
import { pickerSelection } from '../../src/engine/inputs/PickerInput';
import { shownText } from '../../src/engine/inputs/TreeInput';
import { listError } from '../../src/engine/inputs/RowList';
import { isFiltered, queryFiltersOf } from '../../src/engine/list';
import { renderMarkdown, searchHits } from '../../src/engine/page/MarkdownSection';
import type { FieldDefinition, Row } from '../../src/engine/types';
import type { Scope } from '../../src/engine/vocabulary';

const scope: Scope = { record: {}, route: {}, query: {} };
type PickerSpec = NonNullable<FieldDefinition['picker']>;
const picker = (more: Partial<PickerSpec> = {}): PickerSpec => ({
    source: { call: 'getList' },
    columns: ['name'],
    rowId: 'deviceId',
    ...more,
});
const rows: Row[] = [
    { deviceId: 1, name: 'a' },
    { deviceId: 2, name: 'b' },
    { deviceId: 3, name: 'c', busy: true },
];

describe('pickerSelection', () => {
    it('toggles one id, or the page without the rows that cannot be chosen', () => {
        const spec = picker({ disabled: (row) => (row.busy ? '占用' : false) });
        const none = pickerSelection(spec, [], rows, scope);
        expect(none.toggled(2)).toEqual([2]);
        expect(none.pageToggled()).toEqual([1, 2]);
        const both = pickerSelection(spec, [1, 2], rows, scope);
        expect(both.allOnPage).toBe(true);
        expect(both.toggled('1')).toEqual([2]);
        expect(both.pageToggled()).toEqual([]);
        expect(pickerSelection(spec, [1], rows, scope).someOnPage).toBe(true);
    });

    it('single: a choice replaces the other; keepRows: the value is the chosen rows, kept across pages', () => {
        expect(pickerSelection(picker({ single: true }), [1], rows, scope).toggled(2)).toEqual([2]);
        const kept = { deviceId: 9, name: 'from another page' };
        const selection = pickerSelection(picker({ keepRows: true }), [kept], rows, scope);
        expect(selection.chosen).toEqual([9]);
        expect(selection.valueOf(selection.toggled(1))).toEqual([kept, rows[0]]);
    });
});

describe('shownText (tree)', () => {
    const spec = {
        source: { call: 'tree' },
        parentParam: 'parentId',
        emptyOption: { id: 0, name: '无' },
    } as NonNullable<FieldDefinition['tree']>;
    const field: FieldDefinition = { label: '上级', nameField: 'parentName' };
    it("the picked node's name, else the empty option's, else the form's name field, else the value", () => {
        expect(shownText(spec, field, '', new Map(), {})).toBe('');
        expect(shownText(spec, field, 0, new Map(), {})).toBe('无');
        expect(shownText(spec, field, 5, new Map([['5', '仓库']]), { parentName: '旧名' })).toBe('仓库');
        expect(shownText(spec, field, 5, new Map(), { parentName: '旧名' })).toBe('旧名');
        expect(shownText(spec, { label: '上级' }, 5, new Map(), {})).toBe('5');
    });
});

describe('listError (rows, keyValue)', () => {
    it("the list's own message or its root message, not a row's", () => {
        expect(listError({ tags: { message: '最多 3 个' } }, 'tags')).toBe('最多 3 个');
        expect(listError({ a: { tags: { root: { message: '键重复' } } } }, 'a.tags')).toBe('键重复');
        expect(listError({ tags: [{ key: { message: '必填' } }] }, 'tags')).toBeUndefined();
    });
});

describe('list filters', () => {
    it('names each filter in the URL under the prefix: its own, a dialog field, a range end; not path filters', () => {
        const filters = [
            { source: 'q', label: '名称' },
            { source: 'productId', label: '产品', param: 'pid' },
            { source: 'from', label: '时间', to: 'until' },
            { source: 'more', label: '更多', dialog: { fields: [['status', { label: '状态' }]] } },
            { source: 'projectId', label: '项目', path: { param: 'projectId', to: () => '/' } },
        ] as unknown as Parameters<typeof queryFiltersOf>[0];
        expect(queryFiltersOf(filters, 'log')).toEqual({
            q: 'logQ',
            productId: 'pid',
            from: 'logFrom',
            more: 'logMore',
            status: 'logStatus',
            until: 'logUntil',
        });
    });

    it('is filtered by a value other than empty, the default, or one the call fixes', () => {
        const names = { q: 'q', status: 'status' };
        expect(isFiltered(names, { q: '' }, {}, undefined)).toBe(false);
        expect(isFiltered(names, { status: '1' }, { status: '1' }, undefined)).toBe(false);
        expect(isFiltered(names, { q: 'x' }, {}, { q: 'x' })).toBe(false);
        expect(isFiltered(names, { q: 'x' }, {}, undefined)).toBe(true);
    });
});

describe('searchHits (markdown)', () => {
    const doc = renderMarkdown('## 接入\n\n设备用 MQTT 接入。\n\n## 告警\n\n规则触发告警。');
    it('the parts whose heading or text holds the search, any case; none without a search', () => {
        expect(searchHits(doc, '  ')).toBeUndefined();
        expect(searchHits(doc, 'mqtt')?.map((p) => p.heading.text)).toEqual(['接入']);
        expect(searchHits(doc, '告警')?.map((p) => p.heading.id)).toEqual(['h-2']);
    });
});
