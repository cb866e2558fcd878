import type { DemoContext } from './context';

/** A demo three-level group tree with devices in it. Issue 5. */
export async function insertDemoGroups(ctx: DemoContext): Promise<void> {
    void ctx;
}
