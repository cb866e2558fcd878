import { fieldsFor, resourcePath } from '../context';
import type { ResourceDefinition } from '../types';
import type { Action, CallRef, DialogWidth, FilterSpec, ListSpec } from '../vocabulary';
import { familyRight } from '../rights';

/** SPEC.md §9: tables default to 10 rows with 10, 20, 30, 40 to choose from. */
export const DEFAULT_PAGING = { perPage: 10, perPageOptions: [10, 20, 30, 40] };

const idOf = (definition: ResourceDefinition, record: Record<string, unknown>) =>
    encodeURIComponent(String(record.id ?? record[definition.idField ?? 'id']));

/** `createInDialog` / `editInDialog`: true or its options; false or absent: no dialog. */
export function dialogOptions<T extends object>(
    option: boolean | T | undefined,
): (T & { width?: DialogWidth }) | undefined {
    if (!option) return undefined;
    return option === true ? ({} as T) : (option as T);
}

/**
 * The call the edit dialog starts from: the api's getOne (the list row may lack fields the form needs), unless the
 * definition keeps the row (`editInDialog: { load: 'row' }`) or has no getOne.
 */
function editLoad(definition: ResourceDefinition, load: 'getOne' | 'row' | undefined): CallRef | undefined {
    if (load === 'row' || !definition.api?.getOne) return undefined;
    return { call: 'getOne', params: ({ record }) => ({ id: record.id }) };
}

/** The create button: a form in a dialog over the list (createInDialog), else a link to the create page. */
function createAction(definition: ResourceDefinition): Action | undefined {
    const list = definition.list;
    const path = resourcePath(definition);
    const label = list?.createLabel ?? '新建';
    const hasCreate = !definition.api || !!definition.api.create;
    if (!hasCreate || definition.views?.create === false) return undefined;
    const dialog = dialogOptions(list?.createInDialog);
    if (dialog) {
        return {
            kind: 'form',
            label,
            variant: 'contained',
            width: dialog.width,
            title: list?.createTitle ?? list?.createLabel ?? `新建${definition.label}`,
            fields: fieldsFor(definition, 'create').map(([source]) => source),
            schema: definition.schema,
            submit: { call: 'create', params: (scope) => ({ ...scope.values }) },
            success: definition.messages?.created ?? '创建成功',
            failure: definition.messages?.createFailed,
            right: familyRight(definition.rightFamily, 'create'),
        };
    }
    return {
        kind: 'link',
        label,
        variant: 'contained',
        to: () => `/${path}/create`,
        right: familyRight(definition.rightFamily, 'create'),
    };
}

/** 查看 / 编辑 / 删除 after the definition's own row actions, as the list options say. */
function rowActions(definition: ResourceDefinition): Action[] {
    const list = definition.list;
    const path = resourcePath(definition);
    const hasShow = definition.views?.show !== false && (!definition.api || !!definition.api.getOne);
    const hasEdit =
        definition.views?.edit !== false && (!definition.api || (!!definition.api.getOne && !!definition.api.update));
    const out: Action[] = [...(list?.rowActions ?? [])];
    if (list?.show ?? (hasShow && !list?.rowActions?.length)) {
        out.push({ kind: 'link', label: '查看', to: ({ record }) => `/${path}/${idOf(definition, record)}/show` });
    }
    const editDialog = dialogOptions(list?.editInDialog);
    if (editDialog) {
        const load = editLoad(definition, editDialog.load);
        out.push({
            kind: 'form',
            label: '编辑',
            title: `编辑${definition.label}`,
            mode: 'edit',
            width: editDialog.width,
            fields: fieldsFor(definition, 'edit').map(([source]) => source),
            schema: definition.editSchema ?? definition.schema,
            load,
            // The record read afresh comes over the row (the row's id and what the list added stay).
            defaults: ({ record, data }) => ({ ...record, ...(load ? (data?.load as Record<string, unknown>) : {}) }),
            submit: { call: 'update', params: (scope) => ({ ...scope.record, ...scope.values }) },
            success: definition.messages?.updated ?? '修改成功',
            failure: definition.messages?.updateFailed,
            right: familyRight(definition.rightFamily, 'edit'),
        });
    } else if (list?.edit ?? hasEdit) {
        out.push({
            kind: 'link',
            label: '编辑',
            to: ({ record }) => `/${path}/${idOf(definition, record)}`,
            right: familyRight(definition.rightFamily, 'edit'),
        });
    }
    const deletes = list?.deleteConfirm !== false && (!definition.api || !!definition.api.delete);
    if (deletes) {
        out.push({
            kind: 'call',
            label: '删除',
            color: 'error',
            call: { call: 'delete', params: ({ record }) => ({ id: record.id }) },
            confirm: list?.deleteConfirmOf
                ? ({ record }) => list.deleteConfirmOf!(record)
                : list?.deleteConfirm || '确定删除吗？',
            confirmTitle: list?.deleteConfirmTitle ?? '提示',
            success: definition.messages?.deleted ?? '删除成功',
            failure: definition.messages?.deleteFailed ?? '删除失败',
            right: familyRight(definition.rightFamily, 'delete'),
        });
    }
    return out;
}

/** The first vocabulary's filters ('text' is the search box) as FilterSpecs. */
function filtersOf(definition: ResourceDefinition): FilterSpec[] {
    return (definition.list?.filters ?? []).map((f) => ({
        source: f.source,
        label: f.label,
        input: f.input === 'select' || f.input === 'radio' ? 'select' : 'search',
        choices: f.choices?.map((c) => ({ id: c.id as string | number, name: c.name })),
    }));
}

/** The resource's generated list as a ListSpec: one list component for generated and declared lists alike. */
export function listSpecOf(definition: ResourceDefinition): ListSpec {
    const list = definition.list;
    const create = createAction(definition);
    return {
        source: list?.source,
        columns: list?.columns ?? fieldsFor(definition, 'list').map(([source]) => source),
        perPage: list?.perPage ?? DEFAULT_PAGING.perPage,
        perPageOptions: list?.perPageOptions ?? DEFAULT_PAGING.perPageOptions,
        jumper: list?.jumper,
        urlPrefix: list?.urlPrefix,
        filters: filtersOf(definition),
        counters: list?.counters,
        toolbar: [...(list?.toolbar ?? []), ...(create ? [create] : [])],
        rowActions: rowActions(definition),
        bulkActions: list?.bulkActions,
        empty: { text: list?.empty ?? '暂无数据' },
    };
}
