import { defineResource } from '../src/engine/types';

/** Calls of the landing dashboard (SPEC.md "Dashboard (introduce)"; docs/platform-api.md "Dashboard"). Issue 5. */
export default defineResource({
    name: 'dashboard',
    label: '概览',
    hidden: true,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    api: {
        success: 'code200',
        custom: {},
    },
});
