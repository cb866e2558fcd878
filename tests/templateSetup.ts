import { buildTemplate, hasTemplate } from '../server/db/template';

/**
 * Resource and server tests open their in-memory databases from the migrated template (server/db/template.ts).
 * `npm install` builds it; this builds it once per run when it is missing (migrations changed since the install),
 * in node rather than in a jsdom worker, and before the workers race to build it each.
 */
export default async function setup(): Promise<void> {
    if (!hasTemplate()) await buildTemplate();
}
