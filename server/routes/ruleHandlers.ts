import type { Context } from 'hono';
import type { AppEnv, Services } from '../deps';
import { ok } from '../http/envelope';
import { badRequest, notFound } from '../http/errors';
import { paging, positiveInt, readBody, refuseNul } from '../http/input';
import { deleteRule, insertRule, ruleById, setEnabled, updateRule } from '../rules/store';
import type { RuleDefinition } from '../rules/types';

/**
 * What /api/rule (scene linkage and every rule) and /api/alert-rule (alert rules) do alike: read the list query,
 * answer a rule, save, delete and enable one, and load the rules again in the engine after a change.
 */

type C = Context<AppEnv>;

/** The rules a router reaches (type 2: alert rules only; undefined: all) and what it calls one that is missing. */
export interface RuleScope {
    type?: 1 | 2;
    notFound: string;
    answer: (r: NonNullable<Awaited<ReturnType<typeof ruleById>>>, timeZone: string) => unknown;
}

export const idOf = (raw: unknown) => positiveInt(raw, '缺少规则ID');

/** The body, with query parameters it does not name added. */
export async function input(c: Context): Promise<Record<string, unknown>> {
    const body = await readBody(c);
    for (const [k, v] of Object.entries(c.req.query())) if (!(k in body)) body[k] = v;
    return body;
}

export function enabledOf(raw: unknown): boolean {
    if (raw === true || raw === 'true' || raw === 1 || raw === '1') return true;
    if (raw === false || raw === 'false' || raw === 0 || raw === '0') return false;
    throw badRequest('参数 enabled 应为 true 或 false');
}

/** A rule list's query: no NUL anywhere, the page, and the project filter. */
export function listQuery(c: C) {
    const q = c.req.query();
    for (const [k, v] of Object.entries(q)) refuseNul(k, v);
    const { size, offset } = paging(q.pageNumber, q.pageSize);
    const projectId = q.projectId ? positiveInt(q.projectId, '项目ID必须是正整数') : undefined;
    return { q, size, offset, projectId };
}

/** The rules changed: this process loads them again and tells the others. */
const refresh = (s: Services) => s.rules?.changed();

export async function ruleDetail(s: Services, scope: RuleScope, c: C) {
    const rule = await ruleById(s.db, idOf(c.req.query('id')), scope.type);
    if (!rule) throw notFound(scope.notFound);
    return ok(c, scope.answer(rule, s.config.timeZone));
}

/** Stores a validated rule: a new one, or the one the body's id names. */
export async function saveRule(
    s: Services,
    scope: RuleScope,
    c: C,
    body: Record<string, unknown>,
    def: RuleDefinition,
) {
    let id: number;
    if (body.id !== undefined && body.id !== null && body.id !== '') {
        id = idOf(body.id);
        if (!(await updateRule(s.db, id, def))) throw notFound(scope.notFound);
    } else id = await insertRule(s.db, def);
    await refresh(s);
    return ok(c, { id });
}

export async function removeRule(s: Services, scope: RuleScope, c: C) {
    if (!(await deleteRule(s.db, idOf((await input(c)).id), scope.type))) throw notFound(scope.notFound);
    await refresh(s);
    return ok(c, null);
}

export async function enableRule(s: Services, scope: RuleScope, c: C) {
    const body = await input(c);
    if (!(await setEnabled(s.db, idOf(body.id), enabledOf(body.enabled), scope.type))) throw notFound(scope.notFound);
    await refresh(s);
    return ok(c, null);
}
