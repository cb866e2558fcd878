/**
 * Section 10's second worked example of docs/adding-a-resource.md (alert contact groups: a member picker over contacts,
 * a rota of rows whose times may cross midnight, JSON bodies, the rota as a week grid) and section 8's day grid,
 * checked by `tsc --noEmit`; tests/unit/guideExamples.test.ts fails when the guide's copies differ from the regions
 * between the DOC-START / DOC-END markers.
 */
import * as yup from 'yup';
import dayjs from 'dayjs';
import { defineResource, type AnyPaths, type Row, type Section, type WeekSpan } from '../../src/engine';

// DOC-START schema
/** 'HH:mm'; an end not after the start is on the next day (22:00–06:00 is a night shift). */
const clock = yup.string().matches(/^\d{2}:\d{2}$/, '时间格式为 HH:mm');

export const rotaRowSchema = yup.object({
    contactId: yup.number().required('请选择值班人员'),
    weekday: yup.number().required('请选择星期').min(1).max(7),
    start: clock.required('请选择开始时间'),
    // Equal times would be a 24-hour shift in the grid; this rota refuses them instead.
    end: clock
        .required('请选择结束时间')
        .test('not-start', '结束时间不能与开始时间相同', (end, context) => end !== context.parent.start),
});

export const contactGroupSchema = yup.object({
    name: yup.string().required('请输入组名称').max(32, '组名称不得超过32个字符'),
    memberIds: yup.array().of(yup.number().required()).min(1, '请选择成员'),
    rota: yup.array().of(rotaRowSchema),
});
// DOC-END schema

// DOC-START definition
const WEEKDAYS = ['周一', '周二', '周三', '周四', '周五', '周六', '周日'].map((name, i) => ({ id: i + 1, name }));

/** A rota row's end label says 次日 once the end is not after the start. */
const endLabel = (values: Row) => {
    const row = values.$row as Row;
    return row.start && row.end && String(row.end) <= String(row.start) ? '结束时间（次日）' : '结束时间';
};

/** The rota rows the platform answers ({ shiftId, contactName, weekday, start, end }) as the grid's spans. */
const rotaSpans = (rota: unknown): WeekSpan[] =>
    ((rota as Row[] | undefined) ?? []).map((r) => ({
        key: r.shiftId as number,
        label: String(r.contactName),
        weekday: Number(r.weekday),
        start: String(r.start),
        end: String(r.end),
    }));

const rotaGrid: Section = {
    kind: 'timeGrid',
    title: '每周值班',
    grid: { kind: 'week', spans: ({ record }) => rotaSpans(record.rota), empty: '暂无值班安排' },
};

export default defineResource<AnyPaths>({
    name: 'contactGroups',
    label: '联系组',
    path: 'contactGroup',
    schema: contactGroupSchema,
    fields: {
        name: { label: '组名称', required: true, maxLength: 32 },
        // A picker over another entity: the group's own call answers contacts, `rowsOf` names the columns by them.
        memberIds: {
            label: '成员',
            input: 'picker',
            required: true,
            views: ['create', 'edit'],
            picker: {
                source: { call: 'candidates' },
                rowsOf: 'contacts',
                rowId: 'id',
                columns: ['name', 'phone'],
                filters: [{ source: 'name', label: '姓名' }],
                perPage: 10,
            },
        },
        rota: {
            label: '值班表',
            input: 'rows',
            views: ['create', 'edit'],
            rows: {
                fields: [
                    [
                        'contactId',
                        {
                            label: '值班人员',
                            input: 'select',
                            choicesFrom: { call: 'candidates', optionValue: 'id', optionText: 'name' },
                        },
                    ],
                    ['weekday', { label: '星期', input: 'select', choices: WEEKDAYS }],
                    ['start', { label: '开始时间', input: 'time' }],
                    ['end', { label: '结束时间', input: 'time', formLabel: endLabel }],
                ],
                addLabel: '添加班次',
                newRow: { weekday: 1, start: '09:00', end: '18:00' },
                rowLabel: '班次',
            },
        },
    },
    list: { perPage: 10, perPageOptions: [10, 20], createInDialog: { width: 'lg' }, editInDialog: { width: 'lg' } },
    views: { show: false, edit: false },
    pages: [
        {
            path: '/contactGroupDetail/:id/*',
            title: '联系组详情',
            record: { call: 'getOne', params: ({ route }) => ({ id: route.id }) },
            tabs: [{ key: 'rota', label: '值班表', sections: [rotaGrid] }],
        },
    ],
    api: {
        success: 'code200',
        getList: {
            get: '/api/contactGroup/list',
            paging: ['page', 'size'],
            read: 'data.list',
            total: 'data.totalCount',
        },
        getOne: { get: '/api/contactGroup/get', params: (r) => ({ id: r.id }), read: 'data' },
        // The contract's request bodies are application/json: the form travels as one JSON object.
        create: { post: '/api/contactGroup/save', body: 'json', read: 'data' },
        update: { post: '/api/contactGroup/update', body: 'json' },
        custom: {
            candidates: {
                get: '/api/contact/list',
                paging: ['page', 'size'],
                read: 'data.list',
                total: 'data.totalCount',
            },
        },
    },
});
// DOC-END definition

// DOC-START daygrid
export const otaWindows: Section = {
    kind: 'timeGrid',
    title: '今日升级窗口',
    grid: {
        kind: 'day',
        day: () => dayjs().format('YYYY-MM-DD'),
        source: {
            call: 'otaWindows',
            params: ({ record }) => ({ batchId: record.id, day: dayjs().format('YYYY-MM-DD') }),
        },
        rows: 'devices',
        spans: 'spans',
        colors: { 固件回滚: '#c62828' },
    },
};
// DOC-END daygrid
