import type { DemoContext } from './context';

/** Demo users, project staff, alert events and apps for the dashboard and project overview. Issue 5. */
export async function insertDemoDashboard(ctx: DemoContext): Promise<void> {
    void ctx;
}
