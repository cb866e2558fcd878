import { AsyncLocalStorage } from 'node:async_hooks';
import { inArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { SessionUser } from '../sso/sessions';

/**
 * The projects the current request may see: undefined for an administrator (and outside a request: the broker,
 * the seed, retention), else the projects the user is staff of. Set once per request by the rights middleware and
 * read by the list queries' shared filters (devices, products, projects, groups, alerts), so a route needs no code
 * of its own to be scoped (docs/roles.md "Project scoping").
 */
export interface ProjectScope {
    projectIds: number[];
    projectCodes: string[];
}

const storage = new AsyncLocalStorage<ProjectScope | undefined>();

export function scopeOf(user: SessionUser): ProjectScope | undefined {
    return user.admin ? undefined : { projectIds: user.projectIds, projectCodes: user.projectCodes };
}

export function runInScope<T>(scope: ProjectScope | undefined, fn: () => T): T {
    return storage.run(scope, fn);
}

export function currentScope(): ProjectScope | undefined {
    return storage.getStore();
}

/** `column IN (the scope's project ids)`; undefined when unscoped; false when the user is staff of no project. */
export function scopeByProjectId(column: AnyPgColumn): SQL | undefined {
    const scope = currentScope();
    if (!scope) return undefined;
    return scope.projectIds.length ? inArray(column, scope.projectIds) : sql`false`;
}

/** The same, on a project code column (products, groups). */
export function scopeByProjectCode(column: AnyPgColumn): SQL | undefined {
    const scope = currentScope();
    if (!scope) return undefined;
    return scope.projectCodes.length ? inArray(column, scope.projectCodes) : sql`false`;
}

/** Whether a record of this project (null: none) is within the current request's scope. */
export function inScope(projectId: number | null | undefined): boolean {
    const scope = currentScope();
    return !scope || (projectId != null && scope.projectIds.includes(projectId));
}
