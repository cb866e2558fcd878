/**
 * Type test (checked by `tsc --noEmit`, never run): a definition's `api` names only paths and methods openapi.yaml
 * declares (src/api/schema.d.ts). Each `@ts-expect-error` fails tsc the day its line stops being an error.
 */
import type { ApiCall } from '../../dataProvider/types';
import { defineResource, type AnyPaths, type ContractPath } from '../../src/engine/types';

const base = { name: 'contractCheck', label: '契约检查', fields: {} };

// Declared paths with their methods typecheck, custom calls included.
export const declared = defineResource({
    ...base,
    api: {
        success: 'code200',
        getList: { get: '/api/edge/driver/list', paging: ['pageNumber', 'pageSize'], read: 'data.records' },
        create: { post: '/api/edge/driver/save' },
        delete: { delete: '/api/edge/driver/delete' },
        custom: { options: { get: '/api/edge/driver/options' } },
    },
});

export const undeclaredPath = defineResource({
    ...base,
    api: {
        success: 'code200',
        // @ts-expect-error openapi.yaml declares no /api/edge/driver/lists
        getList: { get: '/api/edge/driver/lists' },
    },
});

export const undeclaredMethod = defineResource({
    ...base,
    api: {
        success: 'code200',
        // @ts-expect-error /api/edge/driver/list is a GET, not a POST
        getList: { post: '/api/edge/driver/list' },
    },
});

export const undeclaredCustom = defineResource({
    ...base,
    api: {
        success: 'code200',
        // @ts-expect-error a custom call is checked too
        custom: { typo: { post: '/api/edge/driver/sav' } },
    },
});

// A call kept apart from its definition is checked where it is typed.
// @ts-expect-error DELETE /api/edge/driver/save is not declared
export const apart: ContractPath<'delete'> = '/api/edge/driver/save';

// An invented platform (an engine test) names its contract.
export const invented = defineResource<AnyPaths>({
    ...base,
    api: { success: 'code200', getList: { get: '/api/anything/you/like' } },
});

// Calls typed apart from the contract cannot be spread into a definition's calls.
const loose: Record<string, ApiCall> = { x: { get: '/api/invented' } };
export const spread = defineResource({
    ...base,
    // @ts-expect-error ApiCall (any path) is not a declared call
    api: { success: 'code200', custom: { ...loose } },
});
