import type { Tx } from '../db/client';

/** What the demo seed has written so far, for the seed steps that build on it (one transaction). */
export interface DemoContext {
    tx: Tx;
    now: Date;
    /** productName → id and productKey */
    productIds: Map<string, { id: number; productKey: string }>;
    /** project code → id */
    projectIds: Map<string, number>;
    /** deviceName → deviceId */
    deviceIds: Map<string, number>;
}
