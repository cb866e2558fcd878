import type { DemoContext } from './context';

/** Demo property values, property history and event messages for the demo devices. Issue 4. */
export async function insertDemoTelemetry(ctx: DemoContext): Promise<void> {
    void ctx;
}
