import type { DemoContext } from './context';

/** Demo tags (including location tags) on demo devices. Issue 4. */
export async function insertDemoTags(ctx: DemoContext): Promise<void> {
    void ctx;
}
